using TailDb.LoadTest.Reporting;
using TailDb.LoadTest.Target;
using TailDb.LoadTest.Workloads;
using TailDb.Tracing.Recording;
using TailDb.Tracing.Sampling;

namespace TailDb.LoadTest.Harness;

/// <summary>The harness's first stage: what will run, checked before anything starts.</summary>
public sealed partial class LoadTestHarness
{
    /// <summary>What <see cref="Plan"/> decided: the modes, the targets, the runs, each run's trace file (null: untraced), the machine.</summary>
    private sealed record HarnessPlan(
        IReadOnlyList<GcMode> Modes, IReadOnlyList<TargetAddress> Targets, int Runs, Dictionary<(string Name, TargetAddress t, int run), string?> TracePaths, MachineInfo Machine);

    /// <summary>
    /// Plan: checks the flags against each other and the targets, resolves the GC modes and the
    /// sampler, names every trace file and checks every output can be written, before anything runs;
    /// prints what will run.
    /// </summary>
    private HarnessPlan Plan()
    {
        if (_options.Workload.Validate() is { } invalid)
        {
            throw new LoadTestException(ExitCode.InvalidArguments, invalid);
        }

        IReadOnlyList<GcMode> modes = ResolveModes(_options.Gc, _options.RuntimeConfigDirectory);
        IReadOnlyList<TargetAddress> targets = _options.Targets;
        CheckTargets(targets);
        if (_options.TracePath is not null)
        {
            _sampler = ResolveSampler();
            _out.WriteLine($"sampler: {_sampler.Describe()}");
            _out.WriteLine($"trace level: {TraceLevelDescription(_options.TraceLevel)}");
        }

        int runs = _options.Repeat;
        var tracePaths = modes
            .SelectMany(m => targets.SelectMany(t => Enumerable.Range(1, runs).Select(run => (m.Name, t, run))))
            .ToDictionary(
                key => key,
                key => _options.TracePath is null || key.t.Kind == TargetKind.Endpoint
                    ? null
                    : HarnessOptions.TracePathFor(_options.TracePath, key.Name, modes.Count, key.run, runs, targets.Count > 1 ? TraceSuffix(key.t) : null));
        if (_options.ReportDirectory is { } reportDirectory)
        {
            HtmlReport.Prepare(reportDirectory);
        }

        if (_options.OutPath is { } outPath)
        {
            EnsureWritable("--out", outPath);
        }

        foreach (var (key, path) in tracePaths)
        {
            if (path is not null)
            {
                EnsureWritable("--trace", path);
                if (key.t.Kind == TargetKind.TailDbServer)
                {
                    EnsureWritable("--trace", HarnessOptions.ClientTracePathFor(path));
                }
            }
        }

        _out.WriteLine($"workload: {_options.Workload.Describe()}");
        if (targets.Any(t => t.Networked))
        {
            _out.WriteLine($"target: {string.Join(", ", targets.Select(t => t.Name))}; client: {_options.Client.Describe()}" +
                (targets.Any(t => t.Kind == TargetKind.TailDbServer) ? $"; --gc sets the TailDb server's GC, the client runs under {ClientModeName}" : ""));
        }

        if (_options.Injections.Count > 0)
        {
            _out.WriteLine($"injecting: {string.Join("; ", _options.Injections.Select(i => i.Spelled))}" + (_options.TracePath is null ? " (no --trace: no truth file)" : ""));
        }

        if (runs > 1)
        {
            _out.WriteLine($"repeat: {runs} runs, modes interleaved ({string.Join(", ", modes.Select(m => m.Name))}, then again)");
        }

        MachineInfo machine = MachineInfo.Current();
        _out.WriteLine($"machine: {machine.Describe()}");
        _out.Flush();

        return new HarnessPlan(modes, targets, runs, tracePaths, machine);
    }

    /// <summary>Flags that make no sense for a target, and an endpoint that does not answer: one line each, before anything runs.</summary>
    private void CheckTargets(IReadOnlyList<TargetAddress> targets)
    {
        if (targets.Any(t => t.Networked) && _options.Injections.Count > 0)
        {
            throw new LoadTestException(ExitCode.InvalidArguments, "--inject works in-process only: the causes it injects are in the worker, not in a server");
        }

        if (targets.Any(t => t.Networked) && (_options.Workload.CompactEverySeconds > 0 || _options.Workload.Upkeep != UpkeepPlacement.Background))
        {
            throw new LoadTestException(ExitCode.InvalidArguments, "--compact-every and --upkeep work in-process only: they drive the worker's own store");
        }

        if (_options.TracePath is not null && targets.FirstOrDefault(t => t.Kind == TargetKind.Endpoint) is { } untraceable)
        {
            throw new LoadTestException(ExitCode.InvalidArguments, $"--trace (and --report, which records one) records the in-process worker or a TailDb server the load test starts (--target taildb-server); {untraceable.Name} is not ours to trace");
        }

        foreach (TargetAddress endpoint in targets.Where(t => t.Kind == TargetKind.Endpoint))
        {
            string pong = RespControl.Command(endpoint, Math.Max(_options.Client.TimeoutMilliseconds, 2000), "PING");
            if (pong != "PONG")
            {
                throw new LoadTestException(ExitCode.TargetFailed, $"--target {endpoint.Name}: PING was answered with '{pong}', not PONG");
            }
        }
    }

    private static string TraceLevelDescription(RecordingLevel level) => level == RecordingLevel.Requests
        ? "requests (each request's Start/Stop and the store's upkeep: what slowest needs; --trace-level store adds the store's Get/Put/FileRead/Fsync)"
        : "store (each request's Start/Stop with the store's Get/Put/Delete, FileRead and Fsync nested in it)";

    private static IReadOnlyList<GcMode> ResolveModes(string gc, string? directory)
    {
        try
        {
            return GcMode.Resolve(gc, directory);
        }
        catch (GcModeException e)
        {
            throw new LoadTestException(e.Problem == GcModeProblem.InvalidArguments ? ExitCode.InvalidArguments : ExitCode.BadRuntimeConfig, e.Message, e);
        }
    }

    private SamplerChoice ResolveSampler()
    {
        var choice = SamplerChoice.Resolve(_options.Sampler, _options.SamplerRate, out string? problem);
        return problem is null ? choice : throw new LoadTestException(ExitCode.InvalidArguments, problem);
    }

    private static string TraceSuffix(TargetAddress target) => target.Kind == TargetKind.TailDbServer ? "server" : "inprocess";

    private static void EnsureWritable(string flag, string path)
    {
        try
        {
            string full = Path.GetFullPath(path);
            using (new FileStream(full, FileMode.Create, FileAccess.Write, FileShare.ReadWrite))
            {
            }
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException or ArgumentException or NotSupportedException)
        {
            throw new LoadTestException(ExitCode.OutputFailed, $"{flag}: cannot write {path}: {e.Message}");
        }
    }
}
