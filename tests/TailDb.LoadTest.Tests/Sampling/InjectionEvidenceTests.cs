using System.Runtime.CompilerServices;
using TailDb.Analyzer.Attribution;
using TailDb.Analyzer.Causes;
using TailDb.Analyzer.Sources;
using TailDb.Analyzer.Stacks;
using TailDb.Analyzer.Traces;
using TailDb.LoadTest.Injections;
using TailDb.LoadTest.Tests.Injections;
using TailDb.TestSupport.Skipping;
using Xunit.Abstractions;

namespace TailDb.LoadTest.Tests.Sampling;

/// <summary>
/// Opt-in: re-scores a kept injected trace (TAILDB_KEEP_INJECTION_TRACES on
/// <see cref="KernelSamplerInjectionTests"/> keeps them) with the analyzer as it is now, and prints,
/// for every miss, what the truth file and the trace say overlapped the request: the firing windows,
/// the runtime's GC pauses (the load test's own listener), and the slow requests in front of it on
/// its thread. How the misses of issue 21 were read; a change to the attribution is checked on the
/// same trace before a new run is spent on it.
/// </summary>
public sealed class InjectionEvidenceTests(ITestOutputHelper output)
{
    public const string Variable = "TAILDB_INJECTION_TRACE";

    [KeptTraceFact]
    public void A_kept_injected_trace_is_scored_and_each_miss_is_shown_with_what_overlapped_it()
    {
        string trace = Environment.GetEnvironmentVariable(Variable)!;
        TruthFile truth = TruthFile.Read(TruthFile.PathBeside(trace));
        SlowestReport report = SlowestAnalysis.Run(new SlowestSettings(trace, RequestSelection.Default, ThresholdMs: 5, Top: int.MaxValue), StackReaders.Create(StackReaderKind.NetTrace));
        TraceClock clock = TraceClock.Read(trace, TraceKind.NetTrace)!;
        InjectionScore score = InjectionScore.Of(truth, report, clock,
            alsoKnown: c => c.Kind == CauseKind.CpuWait && c.Name.Contains("stress-ng", StringComparison.Ordinal));
        output.WriteLine(score.Describe());

        var pauses = (truth.Pauses ?? []).Select(p => (Start: clock.RelativeMSec(p.Start), Stop: clock.RelativeMSec(p.Stop))).ToArray();
        var windows = truth.Windows.Select(w => (Kind: truth.Injections[w.Injection].Kind, Start: clock.RelativeMSec(w.Start), Stop: clock.RelativeMSec(w.Stop), w.Thread)).ToArray();
        var byThread = report.Slowest.GroupBy(r => r.ThreadId).ToDictionary(g => g.Key, g => g.OrderBy(r => r.StartMs).ToArray());
        foreach (SlowRequestRow row in score.FalseBlamed)
        {
            double done = row.StartMs + row.DurationMs;
            output.WriteLine(FormattableString.Invariant($"FALSE BLAME at {row.StartMs:0.000} ms thread {row.ThreadId}: response {row.DurationMs:0.###} (queue {row.QueueMs:0.###}); named: {row.Named?.Cause} {row.Named?.Value:0.###}"));
            foreach (var w in windows.Where(w => w.Start < done && w.Stop > row.StartMs - 50))
            {
                output.WriteLine(FormattableString.Invariant($"    firing {w.Kind} {w.Start:0.000}-{w.Stop:0.000} ({w.Stop - w.Start:0.###} ms) thread {w.Thread}"));
            }

            foreach (var p in pauses.Where(p => p.Start < done && p.Stop > row.StartMs - 50))
            {
                output.WriteLine(FormattableString.Invariant($"    GC pause {p.Start:0.000}-{p.Stop:0.000} ({p.Stop - p.Start:0.###} ms)"));
            }

            output.WriteLine("    queue: " + Describe(row.QueueCauses) + " | service: " + Describe(row.ServiceCauses));
        }

        foreach (InjectionMiss miss in score.Misses)
        {
            output.WriteLine("MISS " + miss.Describe());
            SlowRequestRow row = miss.Row;
            double done = row.StartMs + row.DurationMs;
            foreach (var w in windows.Where(w => w.Start < done && w.Stop > row.StartMs - 50))
            {
                output.WriteLine(FormattableString.Invariant($"    firing {w.Kind} {w.Start:0.000}-{w.Stop:0.000} ({w.Stop - w.Start:0.###} ms) thread {w.Thread}"));
            }

            foreach (var p in pauses.Where(p => p.Start < done && p.Stop > row.StartMs - 50))
            {
                double overlap = Math.Max(0, Math.Min(done, p.Stop) - Math.Max(row.StartMs, p.Start));
                output.WriteLine(FormattableString.Invariant($"    GC pause {p.Start:0.000}-{p.Stop:0.000} ({p.Stop - p.Start:0.###} ms), overlapping the request {overlap:0.###} ms"));
            }

            output.WriteLine("    queue: " + Describe(row.QueueCauses) + " | service: " + Describe(row.ServiceCauses));
            var front = byThread[row.ThreadId].Where(r => r.StartMs < row.StartMs && r.StartMs + r.DurationMs > row.StartMs - 1).TakeLast(3);
            foreach (var f in front)
            {
                output.WriteLine(FormattableString.Invariant($"    in front: at {f.StartMs:0.000} response {f.DurationMs:0.###} (queue {f.QueueMs:0.###}) named {f.Named?.Cause} {f.Named?.Value:0.###}; service: {Describe(f.ServiceCauses)}"));
            }
        }
    }

    private static string Describe(IReadOnlyList<CauseOverlap>? causes) =>
        string.Join(", ", (causes ?? []).Where(c => c.Unit == CauseUnit.Milliseconds).Take(5).Select(c => FormattableString.Invariant($"{c.Cause} {c.Value:0.###}")));
}

/// <summary>A fact that needs <see cref="InjectionEvidenceTests.Variable"/> to name a kept injected trace with its truth file beside it.</summary>
public sealed class KeptTraceFactAttribute : FactAttribute
{
    public KeptTraceFactAttribute([CallerMemberName] string member = "", [CallerFilePath] string file = "")
    {
        string? path = Environment.GetEnvironmentVariable(InjectionEvidenceTests.Variable);
        if (path is null || !File.Exists(path) || !File.Exists(TruthFile.PathBeside(path)))
        {
            Skip = $"{InjectionEvidenceTests.Variable} names no kept injected trace with its truth file beside it (opt-in: keep one with TAILDB_KEEP_INJECTION_TRACES=DIR)";
            DisplayName = SkipNotice.DisplayName(Skip, member, file);
        }
    }
}
