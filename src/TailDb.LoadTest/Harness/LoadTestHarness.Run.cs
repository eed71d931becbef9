using TailDb.LoadTest.Reporting;
using TailDb.LoadTest.Target;
using TailDb.Tracing.Recording;
using TailDb.Tracing.Sampling;

namespace TailDb.LoadTest.Harness;

/// <summary>The harness's third stage: the runs, and each worker watched until it reports, fails, overruns or is stopped.</summary>
public sealed partial class LoadTestHarness
{
    /// <summary>Run: every run of every mode against every target in turn, each run's table as it ends.</summary>
    private async Task<List<ModeReport>> RunAllAsync(HarnessPlan plan, CancellationToken cancellationToken)
    {
        var (modes, targets, runs, tracePaths) = (plan.Modes, plan.Targets, plan.Runs, plan.TracePaths);
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

        return reports;
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

            return await CollectAsync(mode, spec, tracePath, perfProblems).ConfigureAwait(false);
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

            if (sampler.Kind == SamplerKind.Perf && tracePath is not null)
            {
                // The maps this harness turned on for perf (SamplerChoice.Configure): perf script has
                // named the worker's frames by now, and the worker has exited or been killed.
                PerfRecorder.DeletePerfMaps(worker.Id);
            }
        }
    }

    private static void WorkloadLimits(WorkerSpec spec, out TimeSpan limit)
    {
        // Generous: filling the store, JIT under a trace and a saturated shared machine all take time.
        double populate = spec.Workload.Keys / 20_000.0;
        limit = TimeSpan.FromSeconds(120 + populate + (3 * (spec.Workload.WarmupSeconds + spec.Workload.DurationSeconds)));
    }

    private static ModeReport Failed(GcMode mode, ExitCode code, string message) =>
        new(mode, null, null, [new Problem(code, message)]);
}
