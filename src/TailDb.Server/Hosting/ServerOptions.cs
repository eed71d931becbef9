using System.Net;
using TailDb.Server.Protocol;

namespace TailDb.Server.Hosting;

/// <summary>Everything the server is started with; the command line binds into this once.</summary>
public sealed record ServerOptions
{
    public required string Directory { get; init; }

    public IPAddress Bind { get; init; } = IPAddress.Loopback;

    /// <summary>0 picks a free port (tests); the bound port is then <see cref="RespServer.Port"/>.</summary>
    public int Port { get; init; } = 6379;

    public Durability Durability { get; init; } = Durability.None;

    public Transport Transport { get; init; } = Transport.Sockets;

    /// <summary>AUTH password; null: no AUTH (then only loopback binds, unless <see cref="UnsafeBind"/>).</summary>
    public string? RequirePass { get; init; }

    public bool UnsafeBind { get; init; }

    public int MaxClients { get; init; } = 10_000;

    /// <summary>Unparsed request bytes one connection may hold; a frame needing more is a protocol error.</summary>
    public int MaxPendingBytes { get; init; } = 16 << 20;

    /// <summary>Seconds without a read or a completed write before a connection is closed; 0: never.</summary>
    public int IdleTimeoutSeconds { get; init; } = 300;

    /// <summary>The store's value limit; also the longest bulk string a request may hold.</summary>
    public int MaxValueBytes { get; init; } = 1 << 20;

    public int MaxMultibulkCount { get; init; } = 1 << 20;

    public long CacheCapacityBytes { get; init; } = 256L << 20;

    /// <summary>
    /// Through, as the store: a SET caches its value, so a GET after it hits, as it would on a
    /// server that keeps every value in memory. A SET of a key cached with the same length
    /// rewrites the value in place and allocates nothing; only a key's first SET (or a change of
    /// its length) allocates its slot. Update, the default before, cached only what a GET had read
    /// first: the next GETs of the other keys read the log (docs/server.md, "Write-allocate").
    /// </summary>
    public CacheWrites CacheWrites { get; init; } = CacheWrites.Through;

    public int ExpectedKeyCount { get; init; } = 1 << 17;

    /// <summary>
    /// Epoll threads (<see cref="SocketCompletionMode"/>); 0 leaves the count to the runtime (one
    /// per core with inline completions). Applied by the command line, per process. Half the cores
    /// by default: on this 2-core machine one epoll thread had the lower p99 in every
    /// redis-benchmark test (GET -P 1 p99 0.95x/1.37x Garnet's against 2.48x/2.28x), because two
    /// threads that run every command contend for the writer lock and for the cores the clients
    /// and the kernel's network stack need; it costs SET -P 16 throughput, one core of server work
    /// (docs/server.md, "One epoll thread").
    /// </summary>
    public int SocketThreads { get; init; } = Math.Max(1, Environment.ProcessorCount / 2);

    /// <summary>--inject read-stall:every=…,ms=…: GETs stall on purpose in periodic windows; null (the default): never.</summary>
    public Injections.ReadStall? ReadStall { get; init; }

    /// <summary>
    /// Commands the server sends itself before it listens (<see cref="ServerWarmUp"/>), in whole
    /// rounds of <see cref="ServerWarmUp.RoundCommands"/> until it has sent this many; 0: none,
    /// the first clients meet the JIT's first-tier code. Run by the command line, not by
    /// <see cref="RespServer.Start"/>. 40,000 by default: 23 rounds, each with its pause, enough
    /// for the three compilations a hot method goes through with tiered PGO. On the 2026-11-28
    /// machine 12 rounds (20,000) left 776-966 methods to be compiled after the server listened,
    /// 55-62 of them the hot path's tier-1 compilations; 23 left 227-247, 8 of them (docs/server.md,
    /// "Warm-up").
    /// </summary>
    public int WarmUpCommands { get; init; } = 40_000;

    /// <summary>
    /// Whether this server writes its events (Command, Connection) and its store its per-request
    /// events when a session turns them on. False only for the warm-up's scratch server, whose
    /// commands must not appear in a trace of the real one; read after the session's own check,
    /// so an untraced server pays nothing for it.
    /// </summary>
    public bool WritesEvents { get; init; } = true;

    /// <summary>Stop when standard input closes (a parent that started the server died).</summary>
    public bool ExitWithStdin { get; init; }

    /// <summary>How long SHUTDOWN or SIGTERM waits for in-flight commands before closing connections anyway.</summary>
    public TimeSpan DrainTimeout { get; init; } = TimeSpan.FromSeconds(5);

    /// <summary>64 GiB: far below the store's own bound (offsets below 1 TiB), far above any useful segment.</summary>
    public const int MaxSegmentMiB = 64 << 10;

    public RespLimits Limits => new()
    {
        // A key (up to 64 KiB) is a bulk string too.
        MaxBulkBytes = Math.Max(MaxValueBytes, 64 << 10),
        MaxMultibulkCount = MaxMultibulkCount,
    };

    /// <summary>
    /// The store's segment size in MiB (--segment-mib). The warm-up's scratch store uses a few KiB
    /// instead (<see cref="ScratchSegmentBytes"/>), so its few megabytes rotate segments and the first
    /// rotation of the real store runs compiled code, not the JIT, under the writer lock.
    /// </summary>
    public int SegmentMiB { get; init; } = (int)(TailDbOptions.DefaultSegmentMaxBytes >> 20);

    /// <summary>Set only for the warm-up's scratch store: its segment size in bytes, in place of <see cref="SegmentMiB"/>.</summary>
    internal long? ScratchSegmentBytes { get; init; }

    public TailDbOptions StoreOptions => new()
    {
        SegmentMaxBytes = ScratchSegmentBytes ?? (long)SegmentMiB << 20,
        Directory = Directory,
        Durability = Durability,
        MaxValueBytes = MaxValueBytes,
        CacheCapacityBytes = CacheCapacityBytes,
        CacheWrites = CacheWrites,
        ExpectedKeyCount = ExpectedKeyCount,
        WritesEvents = WritesEvents,
    };

    /// <summary>The bind rule: anything but loopback needs a password, or the explicit --unsafe-bind.</summary>
    public void Validate()
    {
        if (!IPAddress.IsLoopback(Bind) && RequirePass is null && !UnsafeBind)
        {
            throw new ServerException(ExitCode.UnsafeBind,
                $"--bind {Bind}: refusing a non-loopback address without --requirepass (anyone who can reach it could read and overwrite every key); add --requirepass, or --unsafe-bind if the network is yours");
        }

        Check(Port is >= 0 and <= 65535, "--port must be 0..65535");
        Check(MaxClients >= 1, "--max-clients must be at least 1");
        Check(MaxPendingBytes >= 1024, "--max-pending-bytes must be at least 1024");
        Check(IdleTimeoutSeconds >= 0, "--idle-timeout must be 0 (never) or more seconds");
        Check(MaxValueBytes >= 1, "--max-value-bytes must be at least 1");
        Check(MaxMultibulkCount >= 1, "--max-multibulk must be at least 1");
        Check(CacheCapacityBytes >= 0, "--cache-bytes must be 0 or more");
        Check(RequirePass is null || RequirePass.Length > 0, "--requirepass must not be empty");
        Check(SocketThreads >= 0, "--socket-threads must be 0 (the runtime's choice) or more");
        Check(WarmUpCommands >= 0, "--warm-up must be 0 (none) or more commands");
        Check(SegmentMiB is >= 1 and <= MaxSegmentMiB, $"--segment-mib must be 1..{MaxSegmentMiB}");
    }

    private static void Check(bool condition, string message)
    {
        if (!condition)
        {
            throw new ServerException(ExitCode.InvalidArguments, message);
        }
    }
}
