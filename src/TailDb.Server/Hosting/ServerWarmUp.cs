using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using System.Runtime;
using System.Text;
using TailDb.Cli;

namespace TailDb.Server.Hosting;

/// <summary>What a warm-up did, for its one line at start.</summary>
/// <param name="Sent">Commands the warm-up sent (every reply read and checked byte for byte).</param>
/// <param name="Served">Commands the scratch server counted as run (INFO's count): equals <paramref name="Sent"/>.</param>
/// <param name="Rounds">Rounds sent, each followed by a pause for the JIT.</param>
/// <param name="MethodsCompiled">Methods the JIT compiled in this process during the warm-up (every tier, both sides of the socket).</param>
/// <param name="CompiledInLastRound">Methods compiled during the last round and its pause: what the JIT was still doing when the warm-up ended.</param>
/// <param name="Scratch">The scratch store's directory, deleted before this report was made.</param>
public sealed record WarmUpReport(long Sent, long Served, int Rounds, TimeSpan Elapsed, long MethodsCompiled, long CompiledInLastRound, string Scratch)
{
    public string Line =>
        $"warm-up: {Counted.Of(Sent, "command")} in {Counted.Of(Rounds, "round")}, {Elapsed.TotalSeconds:0.00} s "
        + $"(SET, GET, DEL, MSET, MGET, PING at pipelines 1 and 16 over loopback to a scratch server; its store deleted); "
        + $"the JIT compiled {Counted.Of(MethodsCompiled, "method")}, {CompiledInLastRound:N0} of them in the last round";
}

/// <summary>
/// Before the server listens, it runs its own command path until the JIT has optimized it: a
/// freshly started server's first second of SET -P 1 ran at 31k-67k req/s instead of 85k, its p99
/// 2.2-2.6 ms against 0.93-1.1 ms warm (docs/server.md, "Cold and warm"), because tiered
/// compilation promotes a method only after 30 calls made once no new method has been compiled for
/// 100 ms (DOTNET_TC_CallCountingDelayMs), and with tiered PGO a hot method is compiled three times
/// (first tier, instrumented, optimized), each promotion after such a quiet spell. So the warm-up
/// sends whole rounds of <see cref="RoundCommands"/> commands, with a pause after each, until it
/// has sent <see cref="ServerOptions.WarmUpCommands"/>. Its line says how many methods the JIT
/// compiled meanwhile (JitInfo's process-wide count) and how many in the last round: a JIT still
/// busy then says the budget was short. (Stopping at the first round that compiled nothing was
/// tried: a round right after the first one compiles nothing while the delay runs, and ended
/// the warm-up with the hot path still on first-tier code.)
/// The commands go over real loopback sockets to a second <see cref="RespServer"/> on 127.0.0.1:0
/// with the same options and transport: the same socket, pipe, parser, dispatcher, SetBatch and
/// store code the clients will run. Its store is a scratch one in a new directory under the temp
/// directory, durability none, deleted afterwards (also on failure), and it writes no events
/// (<see cref="ServerOptions.WritesEvents"/>), so a trace of the server holds only real commands.
/// </summary>
public static class ServerWarmUp
{
    /// <summary>Commands in one round (<see cref="BuildPlan"/>): every hot command kind 32 times or more, past the JIT's 30 calls.</summary>
    public const int RoundCommands = (2 * ConnectCommands) + (48 * 3) + (32 * 4) + (4 * PipelinedReads * 16);

    /// <summary>The name the warm-up's connections give themselves (CLIENT SETNAME), so a test can look for their events.</summary>
    public const string ClientName = "taildb-warm-up";

    /// <summary>Every key the warm-up writes starts with this.</summary>
    public const string KeyPrefix = "taildb-warm-up:";

    private const int ValueBytes = 256;

    private const int PipelinedReads = 24;

    /// <summary>CLIENT SETNAME and CONFIG GET save on each new connection.</summary>
    private const int ConnectCommands = 2;

    /// <summary>New keys a round writes: 48 at pipeline 1, 64 by MSET, 384 at pipeline 16.</summary>
    internal const int KeysPerRound = 48 + 64 + (PipelinedReads * 16);

    private const int KeySpace = 100_000;

    /// <summary>A round writes about 280 KB, so the scratch store rotates a segment about once a round.</summary>
    private const long ScratchSegmentBytes = 256 << 10;

    /// <summary>
    /// After each round: the JIT starts counting a method's calls only once no new method has been
    /// compiled for its call-counting delay (100 ms, checked on a timer), so each of a hot method's
    /// promotions needs a quiet spell. With 100 ms pauses, 12 rounds left about 170 of the hot
    /// path's methods to be compiled after the server listened; with 150 or 200 ms, 6 (all at
    /// tier 1): scripts/server-warm-up-tiers.sh, 2026-11-27.
    /// </summary>
    private static readonly TimeSpan Pause = TimeSpan.FromMilliseconds(150);

    private static readonly TimeSpan ReplyTimeout = TimeSpan.FromSeconds(30);

    /// <summary>
    /// Runs the warm-up for a server about to start with <paramref name="options"/>; returns once
    /// the scratch server is stopped and its directory deleted. A failure is a <see cref="ServerException"/>
    /// with <see cref="ExitCode.WarmUpFailed"/>: the warm-up drives the path clients use, so what
    /// failed there would fail them too.
    /// </summary>
    /// <param name="scratchRoot">Where the scratch directory is made (tests); the temp directory by default.</param>
    public static async Task<WarmUpReport> RunAsync(ServerOptions options, CancellationToken cancellationToken, string? scratchRoot = null)
    {
        ArgumentNullException.ThrowIfNull(options);
        var clock = Stopwatch.StartNew();
        string scratch = Path.Combine(scratchRoot ?? Path.GetTempPath(), $"taildb-warm-up-{Environment.ProcessId}-{Guid.NewGuid():N}");
        Result result;
        string? left;
        try
        {
            Directory.CreateDirectory(scratch);
            result = await DriveAsync(ScratchOptions(options, scratch), options.WarmUpCommands, cancellationToken).ConfigureAwait(false);
        }
        catch (Exception e) when (e is ServerException or IOException or UnauthorizedAccessException or SocketException or TailDbException or InvalidDataException)
        {
            // The scratch server's own start-up error (bind, store), the directory, the sockets, a wrong reply.
            throw Failed(e.Message, e);
        }
        finally
        {
            left = Delete(scratch);
        }

        if (left is not null)
        {
            throw new ServerException(ExitCode.WarmUpFailed, $"warm-up failed: cannot delete its scratch store '{scratch}': {left}");
        }

        // The scratch server's key directory, cache and buffers are garbage now: collected here,
        // before any client, not in a pause a client would wait through.
        GC.Collect(2, GCCollectionMode.Forced, blocking: true, compacting: true);
        return new WarmUpReport(result.Sent, result.Served, result.Rounds, clock.Elapsed, result.Compiled, result.CompiledInLastRound, scratch);
    }

    /// <summary>
    /// The server's own options but for what must differ: where, who may connect, that it is
    /// silent, and limits no lower than the warm-up's own commands need (two connections at once,
    /// 256-byte values, MSET's five arguments), so a server started with tight limits still warms.
    /// </summary>
    internal static ServerOptions ScratchOptions(ServerOptions options, string scratch) => options with
    {
        Directory = scratch,
        MaxClients = Math.Max(options.MaxClients, 64),
        MaxValueBytes = Math.Max(options.MaxValueBytes, ValueBytes),
        MaxMultibulkCount = Math.Max(options.MaxMultibulkCount, 5),
        Bind = IPAddress.Loopback,
        Port = 0,
        RequirePass = null,
        UnsafeBind = false,
        Durability = Durability.None,
        ReadStall = null,
        ExitWithStdin = false,
        WarmUpCommands = 0,
        WritesEvents = false,
        ScratchSegmentBytes = ScratchSegmentBytes,
    };

    private static ServerException Failed(string problem, Exception e) =>
        new(ExitCode.WarmUpFailed, $"warm-up failed: {problem}; --warm-up 0 starts the server without it", e);

    private static async Task<Result> DriveAsync(ServerOptions scratch, int budget, CancellationToken cancellationToken)
    {
        RespServer server = RespServer.Start(scratch);
        try
        {
            long compiledBefore = JitInfo.GetCompiledMethodCount();
            long sent = 0;
            int rounds = 0;
            long inRound = -1;
            while (sent < budget && !cancellationToken.IsCancellationRequested)
            {
                long roundStart = JitInfo.GetCompiledMethodCount();
                // New connections each round, as clients come: accept, connection set-up and close are warmed too.
                using (Socket single = Connect(server.Port))
                using (Socket pipelined = Connect(server.Port))
                {
                    sent += ConnectCommands * 2;
                    sent += BuildPlan(rounds).Run(single, pipelined);
                }

                rounds++;
                await Task.Delay(Pause, CancellationToken.None).ConfigureAwait(false);
                inRound = JitInfo.GetCompiledMethodCount() - roundStart;
            }

            // Every reply was read, and each read's commands are counted before its replies are flushed.
            return new Result(sent, server.State.Stats.CommandsProcessed, rounds, JitInfo.GetCompiledMethodCount() - compiledBefore, inRound);
        }
        finally
        {
            await server.DisposeAsync().ConfigureAwait(false);
        }
    }

    private static Socket Connect(int port)
    {
        var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp)
        {
            NoDelay = true,
            ReceiveTimeout = (int)ReplyTimeout.TotalMilliseconds,
            SendTimeout = (int)ReplyTimeout.TotalMilliseconds,
        };
        try
        {
            socket.Connect(IPAddress.Loopback, port);
            // What clients send on connect (redis-benchmark reads CONFIG GET save and appendonly).
            Exchange(socket, Command("CLIENT", "SETNAME", ClientName), "+OK\r\n"u8.ToArray());
            Exchange(socket, Command("CONFIG", "GET", "save"), "*2\r\n$4\r\nsave\r\n$0\r\n\r\n"u8.ToArray());
        }
        catch
        {
            socket.Dispose();
            throw;
        }

        return socket;
    }

    private static string? Delete(string directory)
    {
        try
        {
            if (Directory.Exists(directory))
            {
                Directory.Delete(directory, recursive: true);
            }

            return null;
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return e.Message;
        }
    }

    /// <summary>Sends the request bytes and reads exactly the expected reply bytes; any other reply is an error.</summary>
    private static void Exchange(Socket socket, byte[] request, byte[] expected)
    {
        socket.Send(request);
        byte[] reply = new byte[expected.Length];
        int read = 0;
        while (read < reply.Length)
        {
            int n = socket.Receive(reply, read, reply.Length - read, SocketFlags.None);
            if (n == 0)
            {
                throw new IOException($"the scratch server closed the connection after {read} of {expected.Length} reply bytes");
            }

            read += n;
        }

        if (!reply.AsSpan().SequenceEqual(expected))
        {
            throw new InvalidDataException($"the scratch server answered '{Printable(reply)}' where '{Printable(expected)}' was due");
        }
    }

    private static string Printable(byte[] bytes) =>
        Encoding.ASCII.GetString(bytes, 0, Math.Min(bytes.Length, 80)).Replace("\r\n", "\\r\\n", StringComparison.Ordinal);

    private static byte[] Command(params string[] args)
    {
        var text = new StringBuilder().Append('*').Append(args.Length).Append("\r\n");
        foreach (string arg in args)
        {
            text.Append('$').Append(Encoding.UTF8.GetByteCount(arg)).Append("\r\n").Append(arg).Append("\r\n");
        }

        return Encoding.UTF8.GetBytes(text.ToString());
    }

    internal static string Key(int i) => KeyPrefix + (i % KeySpace).ToString("D5", System.Globalization.CultureInfo.InvariantCulture);

    /// <summary>
    /// Round <paramref name="round"/>'s commands and the replies due. At pipeline 1: SET, GET, GET
    /// of one key (48 keys), then MSET of two keys, MGET of them, DEL of one, PING (32 times). At
    /// pipeline 16: 24 reads of 16 SETs (each read one SetBatch), 24 of 16 GETs of those keys, 24
    /// of 16 GETs again, 24 of 16 SETs again. Each round writes keys the rounds before did not, so
    /// its GETs go both ways a client's do: the first reads the log and fills the cache, the next
    /// hits it; and the second SETs overwrite cached values in place.
    /// </summary>
    private static Plan BuildPlan(int round)
    {
        int first = round * KeysPerRound;
        string value = new('v', ValueBytes);
        byte[] ok = "+OK\r\n"u8.ToArray();
        byte[] bulk = Encoding.ASCII.GetBytes($"${ValueBytes}\r\n{value}\r\n");
        var single = new List<(byte[] Request, byte[] Reply)>();
        int key = first;
        for (int i = 0; i < 48; i++, key++)
        {
            single.Add((Command("SET", Key(key), value), ok));
            single.Add((Command("GET", Key(key)), bulk));
            single.Add((Command("GET", Key(key)), bulk));
        }

        for (int i = 0; i < 32; i++, key += 2)
        {
            single.Add((Command("MSET", Key(key), value, Key(key + 1), value), ok));
            single.Add((Command("MGET", Key(key), Key(key + 1)), [.. "*2\r\n"u8, .. bulk, .. bulk]));
            single.Add((Command("DEL", Key(key)), ":1\r\n"u8.ToArray()));
            single.Add((Command("PING"), "+PONG\r\n"u8.ToArray()));
        }

        var pipelined = new List<(byte[] Request, byte[] Reply)>();
        foreach (string verb in new[] { "SET", "GET", "GET", "SET" })
        {
            for (int p = 0; p < PipelinedReads; p++)
            {
                var request = new List<byte>();
                var reply = new List<byte>();
                for (int i = 0; i < 16; i++)
                {
                    int k = key + (p * 16) + i;
                    request.AddRange(verb == "SET" ? Command("SET", Key(k), value) : Command("GET", Key(k)));
                    reply.AddRange(verb == "SET" ? ok : bulk);
                }

                pipelined.Add(([.. request], [.. reply]));
            }
        }

        return new Plan([.. single], [.. pipelined]);
    }

    private sealed record Plan((byte[] Request, byte[] Reply)[] Single, (byte[] Request, byte[] Reply)[] Pipelined)
    {
        /// <summary>Sends the round and checks every reply; returns the commands sent.</summary>
        public int Run(Socket single, Socket pipelined)
        {
            foreach ((byte[] request, byte[] reply) in Single)
            {
                Exchange(single, request, reply);
            }

            foreach ((byte[] request, byte[] reply) in Pipelined)
            {
                Exchange(pipelined, request, reply);
            }

            return Single.Length + (Pipelined.Length * 16);
        }
    }

    private readonly record struct Result(long Sent, long Served, int Rounds, long Compiled, long CompiledInLastRound);
}
