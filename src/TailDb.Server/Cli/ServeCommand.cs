using System.CommandLine;
using System.Net;
using System.Runtime.InteropServices;
using TailDb.Cli;
using TailDb.Server.Hosting;
using TailDb.Server.Injections;

namespace TailDb.Server.Cli;

/// <summary>The root command: open the store, listen, serve until SHUTDOWN or SIGTERM.</summary>
public static class ServeCommand
{
    private static readonly ServerOptions Defaults = new() { Directory = "" };

    internal static readonly Option<string> DirOption = new("--dir") { Description = "The store's directory (created if missing; one server per directory)", Required = true };
    internal static readonly Option<int> PortOption = new("--port") { Description = "TCP port (0: any free port, printed at start)", DefaultValueFactory = _ => Defaults.Port };
    internal static readonly Option<string> BindOption = new("--bind") { Description = "Address to listen on; anything but loopback needs --requirepass or --unsafe-bind", DefaultValueFactory = _ => "127.0.0.1" };
    internal static readonly Option<Durability> DurabilityOption = new("--durability") { Description = "None (a write survives a process crash) or Fsync (group commit: survives power loss)", DefaultValueFactory = _ => Durability.None };
    internal static readonly Option<Transport> TransportOption = new("--transport") { Description = "Sockets (a Socket accept loop, pipes over NetworkStream) or Kestrel (Kestrel's socket transport, a connection delegate)", DefaultValueFactory = _ => Defaults.Transport };
    internal static readonly Option<string?> RequirePassOption = new("--requirepass") { Description = "Password clients must AUTH with" };
    internal static readonly Option<bool> UnsafeBindOption = new("--unsafe-bind") { Description = "Allow a non-loopback --bind without --requirepass" };
    internal static readonly Option<int> MaxClientsOption = new("--max-clients") { Description = "Connections beyond this get '-ERR max number of clients reached'", DefaultValueFactory = _ => Defaults.MaxClients };
    internal static readonly Option<int> MaxPendingOption = new("--max-pending-bytes") { Description = "Unparsed request bytes one connection may hold (a longer request is a protocol error)", DefaultValueFactory = _ => Defaults.MaxPendingBytes };
    internal static readonly Option<int> IdleTimeoutOption = new("--idle-timeout") { Description = "Seconds of silence before a connection is closed (0: never)", DefaultValueFactory = _ => Defaults.IdleTimeoutSeconds };
    internal static readonly Option<int> MaxValueOption = new("--max-value-bytes") { Description = "The store's value limit, also the longest bulk string a request may hold", DefaultValueFactory = _ => Defaults.MaxValueBytes };
    internal static readonly Option<int> MaxMultibulkOption = new("--max-multibulk") { Description = "Most arguments in one command", DefaultValueFactory = _ => Defaults.MaxMultibulkCount };
    internal static readonly Option<string?> GcOption = new("--gc") { Description = "GC mode: workstation, workstation-nonconcurrent, server, server-nodatas, nogc, or a path to a runtimeconfig .json (the load test's runtimeconfigs/); default: this program's own" };
    internal static readonly Option<string?> GcVerifyOption = new(GcRelaunch.VerifyFlag) { Description = "(internal) the runtimeconfig this process was started with by --gc", Hidden = true };
    internal static readonly Option<bool> ExitWithStdinOption = new("--exit-with-stdin") { Description = "Stop, as SIGTERM does, when standard input closes: a parent that started the server takes it down when it dies, even by SIGKILL" };
    internal static readonly Option<CacheWrites> CacheWritesOption = new("--cache-writes") { Description = "Invalidate (a write drops the key's cached value; the next read fills it), Update (a write of the same length overwrites the cached value in place, else drops it) or Through (a write caches its value: in place when the key is cached with the same length, else in a new slot)", DefaultValueFactory = _ => Defaults.CacheWrites };
    internal static readonly Option<SocketCompletions> SocketCompletionsOption = new("--socket-completions") { Description = "Inline (a connection's reads and commands run on the epoll thread) or ThreadPool (each socket completion is queued to the thread pool)", DefaultValueFactory = _ => SocketCompletions.Inline };
    internal static readonly Option<int> SocketThreadsOption = new("--socket-threads") { Description = "Epoll threads that watch the sockets (with inline completions they also run the commands); 0: the runtime's choice, one per core; default: half the cores", DefaultValueFactory = _ => Defaults.SocketThreads };
    internal static readonly Option<ReadStall?> InjectOption = new("--inject")
    {
        Description = $"Stall reads on purpose, to study a client's timeouts against them (off by default): {ReadStall.Usage} makes every GET that runs inside a 40 ms window, opening every 2 s, wait until the window closes",
        CustomParser = result =>
        {
            string text = result.Tokens.Count == 1 ? result.Tokens[0].Value : "";
            ReadStall? stall = ReadStall.Parse(text, out string? problem);
            if (problem is not null)
            {
                result.AddError(problem);
            }

            return stall;
        },
        HelpName = "read-stall:every=2s,ms=40",
    };

    internal static readonly Option<int> WarmUpOption = new("--warm-up")
    {
        Description = "Before listening, run this many commands (SET, GET, DEL, MSET, MGET, PING at pipelines 1 and 16, in rounds with pauses for the JIT) through the server's own code, over loopback to a scratch store deleted after, so the first clients meet optimized code; 0: none",
        DefaultValueFactory = _ => Defaults.WarmUpCommands,
    };

    internal static readonly Option<int> SegmentOption = new("--segment-mib") { Description = "The log's segment size in MiB: a full segment is sealed (fsynced) and the next one, made ready in the background, takes the writes", DefaultValueFactory = _ => Defaults.SegmentMiB };

    internal static readonly Option<long> CacheOption = new("--cache-bytes") { Description = "The store's value cache, in bytes (0: none)", DefaultValueFactory = _ => Defaults.CacheCapacityBytes };

    public static RootCommand Create(IReadOnlyList<string> args)
    {
        var root = new RootCommand("TailDb server: the store behind RESP2 (redis-cli, redis-benchmark, StackExchange.Redis)");
        foreach (Option option in new Option[]
        {
            DirOption, PortOption, BindOption, DurabilityOption, TransportOption, RequirePassOption, UnsafeBindOption, MaxClientsOption,
            MaxPendingOption, IdleTimeoutOption, MaxValueOption, MaxMultibulkOption, CacheOption, CacheWritesOption, SocketCompletionsOption, SocketThreadsOption, GcOption, GcVerifyOption, ExitWithStdinOption,
            InjectOption, WarmUpOption, SegmentOption,
        })
        {
            root.Options.Add(option);
        }

        root.SetAction(async (parseResult, cancellationToken) =>
        {
            ServerOptions options = Bind(parseResult);
            options.Validate();

            // Before any socket exists in this process (and inherited by a --gc child).
            SocketCompletionMode.Apply(parseResult.GetValue(SocketCompletionsOption), options.SocketThreads);
            if (parseResult.GetValue(GcOption) is { } gc)
            {
                return (int)await GcRelaunch.RunChildAsync(GcRelaunch.Resolve(gc), args, cancellationToken).ConfigureAwait(false);
            }

            if (parseResult.GetValue(GcVerifyOption) is { } runtimeConfig)
            {
                GcRelaunch.Verify(runtimeConfig);
            }

            return (int)await RunAsync(options, cancellationToken).ConfigureAwait(false);
        });
        return root;
    }

    public static ServerOptions Bind(ParseResult parseResult)
    {
        string bind = parseResult.GetValue(BindOption)!;
        if (!IPAddress.TryParse(bind, out IPAddress? address))
        {
            throw new ServerException(ExitCode.InvalidArguments, $"--bind: '{bind}' is not an IP address");
        }

        return new ServerOptions
        {
            Directory = parseResult.GetValue(DirOption)!,
            Port = parseResult.GetValue(PortOption),
            Bind = address,
            Durability = parseResult.GetValue(DurabilityOption),
            Transport = parseResult.GetValue(TransportOption),
            RequirePass = parseResult.GetValue(RequirePassOption),
            UnsafeBind = parseResult.GetValue(UnsafeBindOption),
            MaxClients = parseResult.GetValue(MaxClientsOption),
            MaxPendingBytes = parseResult.GetValue(MaxPendingOption),
            IdleTimeoutSeconds = parseResult.GetValue(IdleTimeoutOption),
            MaxValueBytes = parseResult.GetValue(MaxValueOption),
            MaxMultibulkCount = parseResult.GetValue(MaxMultibulkOption),
            CacheCapacityBytes = parseResult.GetValue(CacheOption),
            CacheWrites = parseResult.GetValue(CacheWritesOption),
            ExitWithStdin = parseResult.GetValue(ExitWithStdinOption),
            SocketThreads = parseResult.GetValue(SocketThreadsOption),
            ReadStall = parseResult.GetValue(InjectOption),
            WarmUpCommands = parseResult.GetValue(WarmUpOption),
            SegmentMiB = parseResult.GetValue(SegmentOption),
        };
    }

    private static async Task<ExitCode> RunAsync(ServerOptions options, CancellationToken cancellationToken)
    {
        // Registered before the warm-up, so a signal during it still deletes the scratch store.
        using var stopping = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        using var sigterm = PosixSignalRegistration.Create(PosixSignal.SIGTERM, Stop);
        using var sigint = PosixSignalRegistration.Create(PosixSignal.SIGINT, Stop);
        if (options.WarmUpCommands > 0)
        {
            // Before the real port is bound: whoever waits for it (PING loops, the load test) meets a warm server.
            WarmUpReport warm = await ServerWarmUp.RunAsync(options, stopping.Token).ConfigureAwait(false);
            Console.WriteLine(warm.Line);
        }

        if (stopping.IsCancellationRequested)
        {
            Console.WriteLine("TailDb server stopped (during its warm-up)");
            return ExitCode.Success;
        }

        await using RespServer server = RespServer.Start(options);
        using CancellationTokenRegistration cancel = stopping.Token.Register(server.RequestShutdown);
        if (options.ExitWithStdin)
        {
            StdinClosed.Then(server.RequestShutdown, "stdin-watch");
        }

        if (options.ReadStall is { } stall)
        {
            Console.WriteLine($"injecting {stall.Spelled}: GETs inside each window wait until it closes");
        }

        // Tests and scripts wait for this line.
        Console.WriteLine($"TailDb server listening on {options.Bind}:{server.Port} (dir {Path.GetFullPath(options.Directory)}, durability {options.Durability.ToString().ToLowerInvariant()}, pid {Environment.ProcessId})");
        await server.Stopped.ConfigureAwait(false);
        Console.WriteLine("TailDb server stopped");
        return ExitCode.Success;

        void Stop(PosixSignalContext context)
        {
            context.Cancel = true;
            stopping.Cancel();
        }
    }
}
