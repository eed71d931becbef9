using System.Globalization;

namespace TailDb.Analyzer.Watch;

/// <summary>
/// What a watch shows. On a terminal: a screen redrawn once a second (requests/s, rolling
/// percentiles, ring fill, events lost, triggers and what was skipped, the last five captures with
/// their verdicts). Otherwise: one line per capture, for logs and scripts.
/// </summary>
internal sealed class LiveView(TextWriter output, bool interactive, WatchSettings settings, string target)
{
    private readonly object _gate = new();

    private string? _sampler;

    /// <summary>The first session's start also says which sampler makes the captures' samples and why, as `record` and the load test do.</summary>
    public void Started(int processId)
    {
        Line($"watching {target} (pid {processId}): {settings.Selection.Provider} {string.Join("/", settings.Selection.Activities)}, window {settings.Ring.Window.TotalSeconds:0.#} s, max {settings.Ring.MaxBytes / (1 << 20)} MiB, captures in {settings.CaptureDirectory}");
        if (Interlocked.Exchange(ref _sampler, null) is { } sampler)
        {
            Line(sampler);
        }
    }

    /// <summary>The sampler line, said once the first session is up (a watch that never starts one ends in its one error line).</summary>
    public void Sampler(string? perfRing) =>
        _sampler = $"sampler: {settings.Sampler.Describe()}{(perfRing is null ? "" : $"; {perfRing}")}";

    /// <summary>An attached process's JIT code is named by perf only if it started with the perf map on and W^X off.</summary>
    public void AttachedWithPerf(int processId) =>
        Line($"process {processId} attached: perf names its JIT code only if it started with DOTNET_PerfMapEnabled=1 and DOTNET_EnableWriteXorExecute=0");

    public void Skipped(int processId, string why) => Line($"process {processId} not watched: {why}");

    public void Waiting(string name) => Line($"waiting for a process named {name}");

    public void Captured(CaptureResult result)
    {
        if (!interactive)
        {
            Line(Describe(result));
        }
    }

    public void Render(WatchStats stats, NetTraceRing ring, IReadOnlyList<CaptureResult> captures)
    {
        if (!interactive)
        {
            return;
        }

        var screen = new System.Text.StringBuilder();
        screen.Append("\u001b[H\u001b[2J");
        screen.AppendLine($"TailDb.Analyzer watch  {target}  {settings.Selection.Provider} {string.Join("/", settings.Selection.Activities)}");
        screen.AppendLine(Invariant($"requests/s {stats.RequestsPerSecond,8:N0}   total {stats.Requests:N0}   last minute {stats.RollingCount:N0}"));
        screen.AppendLine(Invariant($"p50 {Ms(stats.P50Ms)}   p99 {Ms(stats.P99Ms)}   p99.9 {Ms(stats.P999Ms)}   (rolling minute)"));
        screen.AppendLine(Invariant($"ring {stats.RingBytes / 1048576.0,6:0.0} / {settings.Ring.MaxBytes / 1048576.0:0} MiB ({100.0 * stats.RingBytes / settings.Ring.MaxBytes:0}%), {stats.RingSpanMSec / 1000:0.0} s of {settings.Ring.Window.TotalSeconds:0.#} s; metadata {ring.MetadataBytes / 1024.0:0} KiB; method names kept {stats.MethodLoadBytes / 1024.0:0} KiB"));
        screen.AppendLine(Invariant($"events {stats.Events:N0}   lost {stats.EventsLost:N0}   GC pauses {stats.GcPauses:N0}"));
        screen.AppendLine(Invariant($"{Count(stats.Triggers, "trigger")}: {Count(stats.CapturesStarted, "capture")}, {stats.Merged:N0} folded into a pending capture; skipped {stats.SkippedPending:N0} during one, {stats.SkippedCooldown:N0} in cooldown, {stats.SkippedMaxCaptures:N0} over --max-captures {settings.MaxCaptures}"));
        screen.AppendLine("last captures:");
        for (var i = Math.Max(0, captures.Count - 5); i < captures.Count; i++)
        {
            screen.AppendLine("  " + Describe(captures[i]));
        }

        lock (_gate)
        {
            output.Write(screen.ToString());
            output.Flush();
        }
    }

    /// <summary>The end line: every trigger is accounted for, captured + folded + skipped by reason = triggers.</summary>
    public void Ended(string why, WatchStats stats) =>
        Line(Invariant($"watch ended ({why}): {Count(stats.Requests, "request")}, {Count(stats.Triggers, "trigger")} = {Count(stats.CapturesStarted, "capture")} + {stats.Merged:N0} folded into a capture + {stats.SkippedPending + stats.SkippedCooldown + stats.SkippedMaxCaptures:N0} skipped (pending {stats.SkippedPending:N0}, cooldown {stats.SkippedCooldown:N0}, max-captures {stats.SkippedMaxCaptures:N0}); events lost {stats.EventsLost:N0}, ring peak {stats.PeakRingBytes / 1048576.0:0.0} MiB"));

    /// <summary>The last line: the watch process's own peak resident memory (reports run in child processes, not counted).</summary>
    public void Finished(long peakWorkingSetBytes) =>
        Line(Invariant($"watch process peak memory {peakWorkingSetBytes / 1048576.0:0.0} MiB (--max-bytes {settings.Ring.MaxBytes / 1048576.0:0.#} MiB + up to {WatchSettings.MemoryConstantBytes / 1048576} MiB; capture reports run in their own processes)"));

    public static string Describe(CaptureResult result) =>
        Invariant($"capture {Path.GetFileName(result.Path)} ({result.Bytes / 1048576.0:0.0} MiB): {result.Trigger.Activity} {result.Trigger.DurationMSec:0.###} ms at {result.Trigger.StartMSec / 1000:0.000} s, {result.Trigger.Reason}; verdict: {result.Verdict}{(result.RundownProblem is { } problem ? $" (no method names for code the session did not see load: {problem})" : "")}{DescribePerf(result)}");

    private static string DescribePerf(CaptureResult result) => (result.Perf, result.PerfProblem) switch
    {
        ({ } perf, _) => Invariant($"; perf: {Path.GetFileName(perf.Path)} ({perf.Bytes / 1048576.0:0.0} MiB from a {perf.DataBytes / 1048576.0:0.0} MiB dump, symbols {perf.ScriptCpu.TotalSeconds:0.00} s CPU){perf.CutClause}"),
        (null, { } why) => $"; no perf file: {why}",
        _ => "",
    };

    private void Line(string line)
    {
        lock (_gate)
        {
            output.WriteLine(line);
            output.Flush();
        }
    }

    private static string Count(long count, string noun) => Invariant($"{count:N0} {noun}{(count == 1 ? "" : "s")}");

    private static string Ms(double ms) => double.IsNaN(ms) ? "    -   " : Invariant($"{ms,8:0.###} ms");

    private static string Invariant(FormattableString text) => text.ToString(CultureInfo.InvariantCulture);
}
