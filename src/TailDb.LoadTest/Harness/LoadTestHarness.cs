using System.Diagnostics;
using System.Text.Json;
using TailDb.Cli;
using TailDb.LoadTest.Injections;
using TailDb.LoadTest.Recording;
using TailDb.LoadTest.Reporting;
using TailDb.LoadTest.Target;
using TailDb.LoadTest.Workloads;
using TailDb.Tracing.Recording;
using TailDb.Tracing.Sampling;

namespace TailDb.LoadTest.Harness;

/// <summary>
/// The parent process: runs each GC mode's worker in turn on the identical workload, records a
/// trace per mode if asked, checks each worker got the GC its file asked for, and reports.
/// </summary>
public sealed class LoadTestHarness
{
    private static readonly TimeSpan StopGrace = TimeSpan.FromSeconds(20);
    private static readonly TimeSpan TraceDrain = TimeSpan.FromSeconds(60);

    /// <summary>A JIT-heavy start on a saturated shared machine can take this long to reach the port.</summary>
    private static readonly TimeSpan ConnectTimeout = TimeSpan.FromSeconds(60);

    private readonly HarnessOptions _options;
    private readonly TextWriter _out;
    private readonly TextWriter _error;
    private readonly ProgressLine? _progress;
    private SamplerChoice _sampler = new(SamplerKind.Off, "no --trace", 0);

    /// <summary>
    /// The client worker's trace against a TailDb server has no sampler: a networked request leaves
    /// its load thread at the send, so the load thread's samples and sleep (the scheduler's view)
    /// would be charged to requests that were waiting on the network. Its activities say where they waited.
    /// </summary>
    private static readonly SamplerChoice ClientSampler = new(SamplerKind.Off, "the client's trace against a server: its requests are activities across threads", 0);

    public LoadTestHarness(HarnessOptions options, TextWriter output, TextWriter error, bool showProgress)
    {
        _options = options;
        _out = output;
        _error = error;
        _progress = showProgress ? new ProgressLine(error) : null;
    }

    public async Task<ExitCode> RunAsync(CancellationToken cancellationToken)
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

        var reports = new List<ModeReport>();
        for (int run = 1; run <= runs && !cancellationToken.IsCancellationRequested; run++)
        {
            var thisRun = new List<ModeReport>();
            foreach (GcMode mode in modes)
            {
                foreach (TargetAddress target in targets)
                {
                    if (cancellationToken.IsCancellationRequested)
                    {
                        break;
                    }

                    ModeReport report = await RunModeAsync(mode, target, tracePaths[(mode.Name, target, run)], cancellationToken).ConfigureAwait(false) with { Run = run };
                    thisRun.Add(report);
                    if (modes.Count == 1 && targets.Count == 1 && runs == 1 && report.Result is not null)
                    {
                        ReportRenderer.WriteModeDetail(_out, report);
                    }
                }
            }

            if (runs > 1)
            {
                _out.WriteLine();
                _out.WriteLine($"run {run} of {runs}:");
            }

            ReportRenderer.WriteSummaryTable(_out, thisRun);
            _out.Flush();
            reports.AddRange(thisRun);
        }

        if (runs > 1)
        {
            ReportRenderer.WriteRepeatTable(_out, reports, runs);
        }

        foreach (ModeReport report in reports.Where(r => r.Trace is not null))
        {
            _out.WriteLine($"trace {report.Mode.Name}{(report.Target.Networked ? " " + report.Target.Name : "")}{(runs > 1 ? $" run {report.Run}" : "")}: {report.Trace!.Describe()}");
            if (report.ClientTrace is { } client)
            {
                _out.WriteLine($"client trace {report.Mode.Name}{(runs > 1 ? $" run {report.Run}" : "")}: {client.Describe()}");
            }
        }

        foreach (ModeReport report in reports.Where(r => r.TruthPath is not null))
        {
            _out.WriteLine($"truth {report.Mode.Name}{(runs > 1 ? $" run {report.Run}" : "")}: {report.TruthPath}");
        }

        _out.Flush();
        if (_options.OutPath is { } jsonPath)
        {
            WriteJson(jsonPath, machine, reports, cancellationToken.IsCancellationRequested);
        }

        var problems = reports.SelectMany(r => r.Problems).ToList();
        if (_options.ReportDirectory is { } directory)
        {
            if (cancellationToken.IsCancellationRequested)
            {
                _out.WriteLine("report: not written (interrupted)");
            }
            else
            {
                problems.AddRange(HtmlReport.Write(directory, reports, runs, targets.Count, _out, _progress is null ? null : _error));
            }
        }

        Problem? first = null;
        foreach (Problem problem in problems)
        {
            _error.WriteLine($"error: {problem.Message}");
            first ??= problem;
        }

        if (cancellationToken.IsCancellationRequested)
        {
            _error.WriteLine("interrupted: printed what was measured before the stop");
            return ExitCode.Interrupted;
        }

        return first?.Code ?? ExitCode.Success;
    }

    private async Task<ModeReport> RunModeAsync(GcMode mode, TargetAddress target, string? tracePath, CancellationToken cancellationToken)
    {
        DirectoryInfo scratch = Directory.CreateTempSubdirectory("taildb-loadtest-");
        try
        {
            if (target.Kind == TargetKind.TailDbServer)
            {
                return await RunAgainstServerAsync(mode, scratch.FullName, tracePath, cancellationToken).ConfigureAwait(false);
            }

            return await RunWorkerAsync(mode, mode, target, scratch.FullName, tracePath, cancellationToken).ConfigureAwait(false);
        }
        finally
        {
            try
            {
                scratch.Delete(recursive: true);
            }
            catch (IOException)
            {
                // A store file still open by a worker that is being killed; the OS temp cleaner gets it.
            }
        }
    }

    /// <summary>
    /// --target taildb-server: the server runs under <paramref name="mode"/>, the client worker under
    /// <see cref="ClientModeName"/>. Traced, each records its own file: the server to
    /// <paramref name="tracePath"/> (its Command activities), the client beside it
    /// (<see cref="HarnessOptions.ClientTracePathFor"/>: its Request activities with PoolWait, Attempt
    /// and Retry nested), on the same clock (Stopwatch timestamps on one machine).
    /// </summary>
    private async Task<ModeReport> RunAgainstServerAsync(GcMode mode, string scratch, string? tracePath, CancellationToken cancellationToken)
    {
        _progress?.Show($"{mode.Name}: starting the TailDb server");
        await using DiagnosticPortListener? port = tracePath is null ? null : DiagnosticPortListener.Open();
        using TailDbServerProcess server = TailDbServerProcess.Start(mode, _options.Workload, scratch, port);
        EventPipeRecorder? recorder = null;
        try
        {
            if (port is not null && tracePath is not null)
            {
                var recording = new RecordingOptions(
                    RecordingProviders.Create(
                        _sampler.Kind == SamplerKind.EventPipe, [RecordingProviders.Server], RecordingProviders.ActivityIdsFor([RecordingProviders.Server]),
                        namesFromPerf: _sampler.Kind == SamplerKind.Perf, level: _options.TraceLevel),
                    _options.EventStacks);
                try
                {
                    recorder = await port.RecordAsync(tracePath, recording, server.Exited, ConnectTimeout, cancellationToken).ConfigureAwait(false);
                }
                catch (Exception e) when (e is InvalidOperationException or TimeoutException)
                {
                    throw new LoadTestException(ExitCode.TraceFailed, $"--trace: cannot start the EventPipe session for the TailDb server under mode '{mode.Name}': {e.Message}", e);
                }
            }

            TargetAddress address = await server.WaitListeningAsync(ConnectTimeout, cancellationToken).ConfigureAwait(false);
            GcMode client = ResolveModes(ClientModeName, _options.RuntimeConfigDirectory)[0];
            string? clientTrace = tracePath is null ? null : HarnessOptions.ClientTracePathFor(tracePath);
            ModeReport report = await RunWorkerAsync(client, mode, address, scratch, clientTrace, cancellationToken, ClientSampler).ConfigureAwait(false);
            var problems = report.Problems.ToList();
            TraceSummary? trace = null;
            if (recorder is not null)
            {
                await recorder.StopAsync(TraceDrain).ConfigureAwait(false);
                await recorder.DisposeAsync().ConfigureAwait(false);
                recorder = null;
                if (report.Result?.Phases is { } phases)
                {
                    Tracing.PhaseFile.Write(tracePath!, phases);
                }

                try
                {
                    trace = TraceSummary.Read(tracePath!);
                }
                catch (Exception e) when (e is not OutOfMemoryException)
                {
                    problems.Add(new Problem(ExitCode.TraceFailed, $"mode '{mode.Name}': server trace {tracePath} cannot be read back: {e.Message}"));
                }
            }

            if (await server.StopAsync(StopGrace).ConfigureAwait(false) is { } stopProblem)
            {
                problems.Add(new Problem(ExitCode.ServerFailed, $"mode '{mode.Name}': {stopProblem}"));
            }

            return report with { Mode = mode, Target = TargetAddress.TailDbServer, Trace = trace, ClientTrace = report.Trace, Problems = problems };
        }
        finally
        {
            if (recorder is not null)
            {
                await recorder.DisposeAsync().ConfigureAwait(false);
            }
        }
    }

    /// <param name="workerMode">The GC the worker runs under.</param>
    /// <param name="mode">The mode the row is for (the server's, for taildb-server).</param>
    /// <param name="sampler">The worker trace's sampler; null: the run's (--sampler).</param>
    private async Task<ModeReport> RunWorkerAsync(GcMode workerMode, GcMode mode, TargetAddress target, string scratch, string? tracePath, CancellationToken cancellationToken, SamplerChoice? sampler = null)
    {
        sampler ??= _sampler;
        {
            var spec = new WorkerSpec
            {
                Target = target,
                Client = _options.Client,
                Mode = mode.Name,
                RuntimeConfig = workerMode.RuntimeConfigPath,
                Workload = _options.Workload,
                StoreDirectory = Path.Combine(scratch, "store"),
                ResultPath = Path.Combine(scratch, "result.json"),
                Progress = _progress is not null,
                Injections = _options.Injections,
                TruthPath = _options.Injections.Count > 0 && tracePath is not null ? TruthFile.PathBeside(tracePath) : null,
            };
            string specPath = Path.Combine(scratch, "spec.json");
            await File.WriteAllTextAsync(specPath, JsonSerializer.Serialize(spec, WorkerResult.Json), CancellationToken.None).ConfigureAwait(false);

            _progress?.Show($"{mode.Name}: starting");
            ProcessStartInfo startInfo = WorkerLaunch.Create(workerMode, specPath);
            await using DiagnosticPortListener? port = tracePath is null ? null : DiagnosticPortListener.Open();
            port?.Configure(startInfo);
            if (port is not null)
            {
                sampler.Configure(startInfo);
            }

            using var worker = WorkerProcess.Start(
                startInfo,
                _progress is null ? null : p => _progress.Show(mode.Name, p, _options.Workload.DurationSeconds),
                _progress is null ? null : phase => _progress.Show($"{mode.Name}: {phase}"));
            try
            {
                return await SuperviseAsync(workerMode, worker, spec, port, tracePath, sampler, cancellationToken).ConfigureAwait(false) with { Mode = mode, Target = target };
            }
            finally
            {
                _progress?.Clear();
            }
        }
    }

    /// <summary>The GC mode of the client worker when --gc goes to the TailDb server.</summary>
    public const string ClientModeName = "workstation";

    private static string TraceSuffix(TargetAddress target) => target.Kind == TargetKind.TailDbServer ? "server" : "inprocess";

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

    private async Task<ModeReport> SuperviseAsync(
        GcMode mode, WorkerProcess worker, WorkerSpec spec, DiagnosticPortListener? port, string? tracePath, SamplerChoice sampler, CancellationToken cancellationToken)
    {
        EventPipeRecorder? recorder = null;
        PerfRecorder? perf = null;
        try
        {
            if (port is not null && tracePath is not null)
            {
                // perf first: the worker is still suspended on the port, so its first request is in both recordings.
                perf = await StartPerfAsync(mode, tracePath, sampler, cancellationToken).ConfigureAwait(false);
                recorder = await StartRecorderAsync(mode, worker, port, tracePath, sampler, cancellationToken).ConfigureAwait(false);
                if (recorder is null)
                {
                    return Failed(mode, ExitCode.WorkerFailed, $"mode '{mode.Name}': worker exited before tracing could start (exit code {worker.ExitCode}): {worker.ErrorSummary() ?? "no output"}");
                }
            }

            WorkloadLimits(spec, out TimeSpan limit);
            Task finished = await Task.WhenAny(worker.Done, worker.Exited, Task.Delay(limit, cancellationToken)).ConfigureAwait(false);
            if (cancellationToken.IsCancellationRequested && !worker.Done.IsCompleted)
            {
                // Ctrl-C: ask the worker to cut the measured phase short and report what it has.
                worker.CloseInput();
                finished = await Task.WhenAny(worker.Done, worker.Exited, Task.Delay(StopGrace, CancellationToken.None)).ConfigureAwait(false);
            }

            if (!worker.Done.IsCompleted)
            {
                string message = worker.HasExited
                    ? $"mode '{mode.Name}': worker exited with code {worker.ExitCode}: {worker.ErrorSummary() ?? "no output"}"
                    : cancellationToken.IsCancellationRequested
                        ? $"mode '{mode.Name}': worker did not stop within {StopGrace.TotalSeconds:0} s of the interrupt"
                        : $"mode '{mode.Name}': worker did not finish within {limit.TotalSeconds:0} s";
                ExitCode code = worker.HasExited && (ExitCode)worker.ExitCode is ExitCode.TargetFailed or ExitCode.TargetUnreachable
                    ? (ExitCode)worker.ExitCode
                    : ExitCode.WorkerFailed;
                worker.Kill();
                return Failed(mode, code, message);
            }

            TraceSummary? trace = null;
            if (recorder is not null)
            {
                await recorder.StopAsync(TraceDrain).ConfigureAwait(false);
                await recorder.DisposeAsync().ConfigureAwait(false);
                recorder = null;
            }

            var perfProblems = new List<Problem>();
            if (perf is not null)
            {
                await StopPerfAsync(mode, perf, tracePath!, worker.Id, perfProblems).ConfigureAwait(false);
                perf = null;
            }

            worker.CloseInput();
            if (!await worker.WaitForExitAsync(StopGrace).ConfigureAwait(false))
            {
                worker.Kill();
            }

            WorkerResult result = JsonSerializer.Deserialize<WorkerResult>(await File.ReadAllTextAsync(spec.ResultPath, CancellationToken.None).ConfigureAwait(false), WorkerResult.Json)
                ?? throw new LoadTestException(ExitCode.WorkerFailed, $"mode '{mode.Name}': worker wrote an empty result");
            var problems = ModeVerifier.Verify(mode, result).ToList();
            problems.AddRange(perfProblems);
            if (result.Client is { } client && (client.Counts.ErrorReplies > 0 || client.FirstError is not null))
            {
                problems.Add(new Problem(ExitCode.TargetFailed, $"mode '{spec.Mode}' against {spec.Target.Name}: {Counted.Of(client.Counts.ErrorReplies, "error reply", "error replies")}; {client.FirstError}"));
            }

            if (tracePath is not null)
            {
                try
                {
                    trace = TraceSummary.Read(tracePath);
                }
                catch (Exception e) when (e is not OutOfMemoryException)
                {
                    problems.Add(new Problem(ExitCode.TraceFailed, $"mode '{mode.Name}': trace {tracePath} cannot be read back: {e.Message}"));
                }
            }

            return new ModeReport(mode, result, trace, problems, TruthPath: spec.TruthPath is { } truth && File.Exists(truth) ? truth : null);
        }
        finally
        {
            if (recorder is not null)
            {
                await recorder.DisposeAsync().ConfigureAwait(false);
            }

            if (perf is not null)
            {
                await perf.DisposeAsync().ConfigureAwait(false);
            }
        }
    }

    private SamplerChoice ResolveSampler()
    {
        var choice = SamplerChoice.Resolve(_options.Sampler, _options.SamplerRate, out string? problem);
        return problem is null ? choice : throw new LoadTestException(ExitCode.InvalidArguments, problem);
    }

    private static async Task<PerfRecorder?> StartPerfAsync(GcMode mode, string tracePath, SamplerChoice sampler, CancellationToken cancellationToken)
    {
        if (sampler.Kind != SamplerKind.Perf)
        {
            return null;
        }

        try
        {
            return await PerfRecorder.StartAsync(tracePath, sampler.RateHz, ConnectTimeout, cancellationToken).ConfigureAwait(false);
        }
        catch (InvalidOperationException e)
        {
            throw new LoadTestException(ExitCode.TraceFailed, $"--sampler perf: cannot start perf for mode '{mode.Name}': {e.Message}", e);
        }
    }

    private async Task StopPerfAsync(GcMode mode, PerfRecorder perf, string tracePath, int processId, List<Problem> problems)
    {
        try
        {
            PerfRecording recording = await perf.StopAsync(tracePath, processId, TraceDrain).ConfigureAwait(false);
            _out.WriteLine(
                $"{mode.Name}: perf wrote {Path.GetFileName(recording.Path)}: {recording.Bytes / 1024.0 / 1024.0:0.0} MiB " +
                $"({recording.Bytes / 1024.0 / Math.Max(recording.Seconds, 1e-3):0} KiB/s over {recording.Seconds:0.0} s; perf.data {recording.DataBytes / 1024.0 / 1024.0:0.0} MiB); " +
                $"recorder CPU {recording.RecordCpu.TotalSeconds:0.00} s, symbol resolution {recording.ScriptCpu.TotalSeconds:0.00} s");
        }
        catch (InvalidOperationException e)
        {
            problems.Add(new Problem(ExitCode.TraceFailed, $"mode '{mode.Name}': --sampler perf: {e.Message}"));
        }
        finally
        {
            await perf.DisposeAsync().ConfigureAwait(false);
        }
    }

    private async Task<EventPipeRecorder?> StartRecorderAsync(
        GcMode mode, WorkerProcess worker, DiagnosticPortListener port, string tracePath, SamplerChoice sampler, CancellationToken cancellationToken)
    {
        var options = new RecordingOptions(
            RecordingProviders.Create(sampler.Kind == SamplerKind.EventPipe, activityIds: ActivityIdSource.Own, namesFromPerf: sampler.Kind == SamplerKind.Perf, level: _options.TraceLevel),
            _options.EventStacks);
        try
        {
            return await port.RecordAsync(tracePath, options, worker.Exited, ConnectTimeout, cancellationToken).ConfigureAwait(false);
        }
        catch (InvalidOperationException) when (worker.HasExited)
        {
            // The runtime never got far enough to connect (a bad runtimeconfig, say); the caller reports the worker's own error.
            return null;
        }
        catch (Exception e) when (e is not OutOfMemoryException and not OperationCanceledException)
        {
            throw new LoadTestException(ExitCode.TraceFailed, $"--trace: cannot start the EventPipe session for mode '{mode.Name}': {e.Message}", e);
        }
    }

    private static string TraceLevelDescription(RecordingLevel level) => level == RecordingLevel.Requests
        ? "requests (each request's Start/Stop and the store's upkeep: what slowest needs; --trace-level store adds the store's Get/Put/FileRead/Fsync)"
        : "store (each request's Start/Stop with the store's Get/Put/Delete, FileRead and Fsync nested in it)";

    private static void WorkloadLimits(WorkerSpec spec, out TimeSpan limit)
    {
        // Generous: filling the store, JIT under a trace and a saturated shared machine all take time.
        double populate = spec.Workload.Keys / 20_000.0;
        limit = TimeSpan.FromSeconds(120 + populate + (3 * (spec.Workload.WarmupSeconds + spec.Workload.DurationSeconds)));
    }

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

    private static ModeReport Failed(GcMode mode, ExitCode code, string message) =>
        new(mode, null, null, [new Problem(code, message)]);

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

    private void WriteJson(string path, MachineInfo machine, IReadOnlyList<ModeReport> reports, bool interrupted)
    {
        var document = new RunReport
        {
            Machine = machine,
            Workload = _options.Workload,
            Interrupted = interrupted,
            Runs = _options.Repeat,
            Modes = reports.Select(r => new ModeEntry(r.Mode.Name, r.Mode.RuntimeConfigPath, r.Result, r.Trace, r.Problems.Select(p => p.Message).ToList(), r.Run, r.TruthPath, r.ClientTrace)).ToList(),
        };
        try
        {
            File.WriteAllText(path, JsonSerializer.Serialize(document, WorkerResult.Json));
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            throw new LoadTestException(ExitCode.OutputFailed, $"--out: cannot write {path}: {e.Message}");
        }
    }
}
