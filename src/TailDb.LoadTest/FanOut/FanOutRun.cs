using System.Diagnostics;
using System.Text.Json;
using TailDb.GcModes;
using TailDb.LoadTest.Harness;
using TailDb.LoadTest.Reporting;
using TailDb.LoadTest.Target;
using TailDb.LoadTest.Workloads;
using TailDb.Tracing.Recording;

namespace TailDb.LoadTest.FanOut;

/// <summary>What one fan-out run does: how many shards, under which GC, which routes, the load.</summary>
public sealed record FanOutOptions
{
    public int Shards { get; init; } = 3;

    /// <summary>The shards' GC mode (stated in the scenario's heading); the client runs under <see cref="LoadTestHarness.ClientModeName"/>.</summary>
    public string ServerGc { get; init; } = "workstation";

    /// <summary>Rate (fan-out requests per second), threads, keys, seed, warm-up and measured seconds.</summary>
    public required WorkloadOptions Workload { get; init; }

    /// <summary>The sides, in order; twemproxy is left out, with one line, when nutcracker is not installed.</summary>
    public IReadOnlyList<FanOutRoute> Routes { get; init; } = [FanOutRoute.Twemproxy, FanOutRoute.Direct];

    /// <summary>Where the traces go: the client's per route, each shard's one for the whole run.</summary>
    public required string TraceDirectory { get; init; }

    public string? RuntimeConfigDirectory { get; init; }

    /// <summary>A known pause on one shard (the tests'); null: none.</summary>
    public ShardStall? Stall { get; init; }
}

/// <summary>One route's run: what the client measured and its trace.</summary>
public sealed record FanOutSide(FanOutRoute Route, FanOutResult Result, string ClientTrace, int Stalls);

/// <summary>Every route's run, the shards' traces (shard order) and why a route was left out.</summary>
public sealed record FanOutRunResult(IReadOnlyList<FanOutSide> Sides, IReadOnlyList<string> ShardTraces, IReadOnlyList<string> Skipped);

/// <summary>
/// Starts N TailDb servers (<see cref="TailDbServerProcess"/>, as --target taildb-server does),
/// each traced from its first instruction; for each route, twemproxy when the route needs it and the
/// fan-out client child, traced too; then stops everything. Every process started here is ended
/// here, whatever fails.
/// </summary>
public static class FanOutRun
{
    private static readonly TimeSpan ConnectTimeout = TimeSpan.FromSeconds(60);
    private static readonly TimeSpan Drain = TimeSpan.FromSeconds(60);
    private static readonly TimeSpan StopGrace = TimeSpan.FromSeconds(20);

    public static async Task<FanOutRunResult> RunAsync(FanOutOptions options, TextWriter? progress, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(options);
        if (options.Shards is < 2 or > 16)
        {
            throw new LoadTestException(ExitCode.InvalidArguments, $"fan-out: 2 to 16 shards (got {options.Shards})");
        }

        if (options.Stall?.Validate(options.Shards) is { } badStall)
        {
            throw new LoadTestException(ExitCode.InvalidArguments, $"fan-out: {badStall}");
        }

        GcMode serverMode = Resolve(options.ServerGc, options.RuntimeConfigDirectory);
        GcMode clientMode = Resolve(LoadTestHarness.ClientModeName, options.RuntimeConfigDirectory);
        DirectoryInfo scratch = Directory.CreateTempSubdirectory("taildb-fanout-");
        var ports = new List<DiagnosticPortListener>();
        var servers = new List<TailDbServerProcess>();
        var recorders = new List<EventPipeRecorder>();
        var traces = new List<string>();
        try
        {
            progress?.WriteLine($"fan-out: starting {options.Shards} TailDb servers ({serverMode.Name} GC), traced");
            var recording = new RecordingOptions(RecordingProviders.Create(samples: false, [RecordingProviders.Server]), EventStacks: false);
            for (int s = 0; s < options.Shards; s++)
            {
                string directory = Directory.CreateDirectory(Path.Combine(scratch.FullName, $"shard{s}")).FullName;
                var port = DiagnosticPortListener.Open();
                ports.Add(port);
                TailDbServerProcess server = TailDbServerProcess.Start(serverMode, options.Workload, directory, port);
                servers.Add(server);
                string trace = Path.Combine(options.TraceDirectory, $"shard{s}.nettrace");
                recorders.Add(await port.RecordAsync(trace, recording, server.Exited, ConnectTimeout, cancellationToken).ConfigureAwait(false));
                traces.Add(trace);
            }

            var addresses = new List<TargetAddress>();
            foreach (TailDbServerProcess server in servers)
            {
                addresses.Add(await server.WaitListeningAsync(ConnectTimeout, cancellationToken).ConfigureAwait(false));
            }

            var sides = new List<FanOutSide>();
            var skipped = new List<string>();
            foreach (FanOutRoute route in options.Routes)
            {
                if (route == FanOutRoute.Twemproxy && Twemproxy.Find() is null)
                {
                    skipped.Add($"twemproxy side skipped: {Twemproxy.Missing}");
                    continue;
                }

                sides.Add(await RunSideAsync(options, route, clientMode, addresses, servers, scratch.FullName, progress, cancellationToken).ConfigureAwait(false));
            }

            progress?.WriteLine("fan-out: stopping the servers' traces");
            foreach (EventPipeRecorder recorder in recorders)
            {
                await recorder.StopAsync(Drain).ConfigureAwait(false);
            }

            var problems = new List<string>();
            foreach (TailDbServerProcess server in servers)
            {
                if (await server.StopAsync(StopGrace).ConfigureAwait(false) is { } problem)
                {
                    problems.Add(problem);
                }
            }

            if (problems.Count > 0)
            {
                throw new LoadTestException(ExitCode.ServerFailed, $"fan-out: {string.Join("; ", problems)}");
            }

            return new FanOutRunResult(sides, traces, skipped);
        }
        finally
        {
            foreach (EventPipeRecorder recorder in recorders)
            {
                await recorder.DisposeAsync().ConfigureAwait(false);
            }

            foreach (TailDbServerProcess server in servers)
            {
                server.Dispose();
            }

            foreach (DiagnosticPortListener port in ports)
            {
                await port.DisposeAsync().ConfigureAwait(false);
            }

            try
            {
                scratch.Delete(recursive: true);
            }
            catch (IOException)
            {
                // A store file still open by a server being killed; the OS temp cleaner gets it.
            }
        }
    }

    private static async Task<FanOutSide> RunSideAsync(
        FanOutOptions options, FanOutRoute route, GcMode clientMode, List<TargetAddress> shards, List<TailDbServerProcess> servers,
        string scratch, TextWriter? progress, CancellationToken cancellationToken)
    {
        string name = route.ToString().ToLowerInvariant();
        string directory = Directory.CreateDirectory(Path.Combine(scratch, name)).FullName;
        using Twemproxy? proxy = route == FanOutRoute.Twemproxy
            ? await Twemproxy.StartAsync(shards, directory, 10_000, cancellationToken).ConfigureAwait(false)
            : null;
        var spec = new FanOutSpec
        {
            Shards = shards,
            Route = route,
            Proxy = proxy?.Address,
            Workload = options.Workload,
            ResultPath = Path.Combine(directory, "result.json"),
        };
        string specPath = Path.Combine(directory, "spec.json");
        await File.WriteAllTextAsync(specPath, JsonSerializer.Serialize(spec, WorkerResult.Json), CancellationToken.None).ConfigureAwait(false);
        string trace = Path.Combine(options.TraceDirectory, $"client-{name}.nettrace");
        progress?.WriteLine($"fan-out: {name}: {options.Workload.Rate:0} requests/s of {shards.Count} Gets each, {options.Workload.WarmupSeconds:0.#} s warm-up + {options.Workload.DurationSeconds:0.#} s measured");
        ProcessStartInfo start = WorkerLaunch.Create(clientMode, specPath, command: Commands.FanOutClientCommand.CommandName);
        await using var port = DiagnosticPortListener.Open();
        port.Configure(start);
        using var client = WorkerProcess.Start(start);
        using var stallStop = new CancellationTokenSource();
        Task<int> stalls = options.Stall is { } stall ? stall.RunAsync(servers[stall.Shard].ProcessId, stallStop.Token) : Task.FromResult(0);
        EventPipeRecorder? recorder = null;
        try
        {
            var recording = new RecordingOptions(RecordingProviders.Create(samples: false, activityIds: ActivityIdSource.Own), EventStacks: false);
            recorder = await port.RecordAsync(trace, recording, client.Exited, ConnectTimeout, cancellationToken).ConfigureAwait(false);
            double seconds = 120 + (options.Workload.Keys / 5_000.0) + (3 * (options.Workload.WarmupSeconds + options.Workload.DurationSeconds));
            Task finished = await Task.WhenAny(client.Done, client.Exited, Task.Delay(TimeSpan.FromSeconds(seconds), cancellationToken)).ConfigureAwait(false);
            await stallStop.CancelAsync().ConfigureAwait(false);
            int stalled = await stalls.ConfigureAwait(false);
            if (finished != client.Done)
            {
                throw new LoadTestException(ExitCode.WorkerFailed, client.HasExited
                    ? $"fan-out {name}: the client exited with code {client.ExitCode}: {client.ErrorSummary() ?? "no output"}"
                    : $"fan-out {name}: the client did not finish within {seconds:0} s");
            }

            await recorder.StopAsync(Drain).ConfigureAwait(false);
            client.CloseInput();
            if (!await client.WaitForExitAsync(StopGrace).ConfigureAwait(false))
            {
                client.Kill();
            }

            FanOutResult result = JsonSerializer.Deserialize<FanOutResult>(await File.ReadAllTextAsync(spec.ResultPath, CancellationToken.None).ConfigureAwait(false), WorkerResult.Json)
                ?? throw new LoadTestException(ExitCode.WorkerFailed, $"fan-out {name}: the client wrote an empty result");
            return new FanOutSide(route, result, trace, stalled);
        }
        finally
        {
            await stallStop.CancelAsync().ConfigureAwait(false);
            await stalls.ConfigureAwait(false);
            if (recorder is not null)
            {
                await recorder.DisposeAsync().ConfigureAwait(false);
            }
        }
    }

    private static GcMode Resolve(string gc, string? directory)
    {
        try
        {
            return GcMode.Resolve(gc, directory)[0];
        }
        catch (GcModeException e)
        {
            throw new LoadTestException(e.Problem == GcModeProblem.InvalidArguments ? ExitCode.InvalidArguments : ExitCode.BadRuntimeConfig, e.Message, e);
        }
    }
}
