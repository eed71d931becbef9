using System.Text.Json;
using TailDb.Cli;
using TailDb.LoadTest.Recording;
using TailDb.LoadTest.Reporting;
using TailDb.Tracing.Sampling;

namespace TailDb.LoadTest.Harness;

/// <summary>The harness's fourth stage: what each worker left (its result, its traces, perf's file, the truth file).</summary>
public sealed partial class LoadTestHarness
{
    /// <summary>Collect: a finished worker's result, checked against its mode, and its trace read back.</summary>
    private static async Task<ModeReport> CollectAsync(GcMode mode, WorkerSpec spec, string? tracePath, List<Problem> perfProblems)
    {
        WorkerResult result = JsonSerializer.Deserialize<WorkerResult>(await File.ReadAllTextAsync(spec.ResultPath, CancellationToken.None).ConfigureAwait(false), WorkerResult.Json)
            ?? throw new LoadTestException(ExitCode.WorkerFailed, $"mode '{mode.Name}': worker wrote an empty result");
        var problems = ModeVerifier.Verify(mode, result).ToList();
        problems.AddRange(perfProblems);
        if (result.Client is { } client && (client.Counts.ErrorReplies > 0 || client.FirstError is not null))
        {
            problems.Add(new Problem(ExitCode.TargetFailed, $"mode '{spec.Mode}' against {spec.Target.Name}: {Counted.Of(client.Counts.ErrorReplies, "error reply", "error replies")}; {client.FirstError}"));
        }

        TraceSummary? trace = null;
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

    private async Task StopPerfAsync(GcMode mode, PerfRecorder perf, string tracePath, int processId, List<Problem> problems)
    {
        try
        {
            PerfRecording recording = await perf.StopAsync(tracePath, processId, TraceDrain).ConfigureAwait(false);
            _out.WriteLine(
                $"{mode.Name}: perf wrote {Path.GetFileName(recording.Path)}: {recording.Bytes / 1024.0 / 1024.0:0.0} MiB " +
                $"({recording.Bytes / 1024.0 / Math.Max(recording.Seconds, 1e-3):0} KiB/s over {recording.Seconds:0.0} s; perf.data {recording.DataBytes / 1024.0 / 1024.0:0.0} MiB); " +
                $"recorder CPU {recording.RecordCpu.TotalSeconds:0.00} s, symbol resolution {recording.ScriptCpu.TotalSeconds:0.00} s{recording.CutClause}");
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

    /// <summary>Collect: where each mode's trace, client trace and truth file went.</summary>
    private void ListOutputs(HarnessPlan plan, List<ModeReport> reports)
    {
        int runs = plan.Runs;
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
    }
}
