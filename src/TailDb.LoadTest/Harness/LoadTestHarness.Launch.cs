using System.Diagnostics;
using System.Text.Json;
using TailDb.LoadTest.Injections;
using TailDb.LoadTest.Recording;
using TailDb.LoadTest.Reporting;
using TailDb.LoadTest.Target;
using TailDb.Tracing.Recording;
using TailDb.Tracing.Sampling;

namespace TailDb.LoadTest.Harness;

/// <summary>The harness's second stage: a worker (and a TailDb server, for that target) started under its GC mode, with its recorders.</summary>
public sealed partial class LoadTestHarness
{
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
}
