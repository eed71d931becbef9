using TailDb.Analyzer.Attribution;
using TailDb.Analyzer.Causes;

namespace TailDb.Analyzer.Tests.Attribution;

/// <summary>The verdict's rule, by the rows' types: time causes only, never the measurement, event-based only when asked.</summary>
public sealed class VerdictsTests
{
    private static CauseRow Row(string name, double share, CauseKind kind, CauseUnit unit = CauseUnit.Milliseconds, bool measurement = false, bool eventBased = true) =>
        new(name, "thread", unit, share, share / 2, 2, share * 100, share * 50, kind, 0, measurement, eventBased);

    [Fact]
    public void The_largest_time_cause_is_the_verdict_and_event_causes_never_are()
    {
        var verdict = Verdicts.Build(
            [Row("exceptions thrown", 3, CauseKind.Exceptions, CauseUnit.Events), Row("gen1 GC pauses", 0.3, CauseKind.GcPause), Row("JIT compilation", 0.1, CauseKind.Jit)],
            LatencyBasis.Response, slowTime: 100, eventBasedOnly: false);
        Assert.Equal("gen1 GC pauses", verdict.Cause);
    }

    [Fact]
    public void The_measurements_own_cost_is_overhead_not_the_verdict()
    {
        var verdict = Verdicts.Build(
            [Row("sampler", 0.6, CauseKind.SamplerSuspension, measurement: true), Row("JIT compilation", 0.1, CauseKind.Jit)],
            LatencyBasis.Response, slowTime: 100, eventBasedOnly: false);
        Assert.Equal("JIT compilation", verdict.Cause);
        Assert.Equal(0.6, verdict.MeasurementOverheadShare, 9);
    }

    [Fact]
    public void A_wait_for_a_cpu_the_recording_held_is_overhead_and_does_not_make_the_machine_the_lead()
    {
        var verdict = Verdicts.Build(
            [Row("waiting for a CPU (runnable, not run), held by " + CpuWaitCause.Recording, 0.5, CauseKind.RecordingCpuWait, measurement: true),
             Row("waiting for a CPU (runnable, not run), held by stress-ng-cpu (pid 4242)", 0.1, CauseKind.CpuWait),
             Row("gen1 GC pauses", 0.3, CauseKind.GcPause)],
            LatencyBasis.Response, slowTime: 100, eventBasedOnly: false);

        Assert.Equal(0.5, verdict.MeasurementOverheadShare, 9);
        Assert.Equal(0.1, verdict.CpuWaitShare, 9);
        Assert.Equal("gen1 GC pauses", verdict.Cause);
    }

    [Fact]
    public void Event_based_only_sets_sample_causes_aside()
    {
        CauseRow[] rows = [Row("samples: app code", 0.5, CauseKind.Samples, eventBased: false), Row("JIT compilation", 0.1, CauseKind.Jit)];
        Assert.Equal("samples: app code", Verdicts.Build(rows, LatencyBasis.Response, 100, eventBasedOnly: false).Cause);
        Assert.Equal("JIT compilation", Verdicts.Build(rows, LatencyBasis.Response, 100, eventBasedOnly: true).Cause);
    }

    [Fact]
    public void A_tail_of_requests_due_while_their_threads_still_slept_leads_with_the_load_generator()
    {
        // Row's SlowTotal is share x 100 and slowTime is 100: shares read as given.
        var verdict = Verdicts.Build(
            [Row("off CPU, asleep (a wait, lock or timer), woken by an interrupt or the kernel", 0.55, CauseKind.OffCpu),
             Row("its thread still asleep between requests when the request was due (the pacing wait woke late)", 0.43, CauseKind.LateWake),
             Row("waiting for a CPU (runnable, not run), held by kdamond.0 (pid 71)", 0.1, CauseKind.CpuWait)],
            LatencyBasis.Response, slowTime: 100, eventBasedOnly: false);

        Assert.Equal(CauseKind.OffCpu, verdict.Kind);
        Assert.Equal(0.43, verdict.LateWakeShare, 9);
        string sentence = Verdicts.Sentence(verdict, "slowest 1%", 400, 0.056, 1.0);
        Assert.StartsWith("The load generator made this tail: the requests came due while their threads were still asleep between requests for 43%", sentence, StringComparison.Ordinal);
    }

    [Fact]
    public void A_late_wake_smaller_than_a_GC_or_than_a_quarter_of_the_slow_set_does_not_lead()
    {
        var underGc = Verdicts.Build(
            [Row("gen1 GC pauses", 0.6, CauseKind.GcPause), Row("its thread still asleep between requests when the request was due (the pacing wait woke late)", 0.3, CauseKind.LateWake)],
            LatencyBasis.Response, slowTime: 100, eventBasedOnly: false);
        var small = Verdicts.Build(
            [Row("off CPU, asleep (a wait, lock or timer), woken by an interrupt or the kernel", 0.36, CauseKind.OffCpu),
             Row("its thread still asleep between requests when the request was due (the pacing wait woke late)", 0.2, CauseKind.LateWake)],
            LatencyBasis.Response, slowTime: 100, eventBasedOnly: false);

        Assert.Equal("gen1 GC pauses", underGc.Cause);
        Assert.StartsWith("60% of the slowest 1%'s response time was spent in gen1 GC pauses", Verdicts.Sentence(underGc, "slowest 1%", 400, 0.3, 1.0), StringComparison.Ordinal);
        Assert.DoesNotContain("load generator", Verdicts.Sentence(small, "slowest 1%", 400, 0.05, 1.0), StringComparison.Ordinal);
    }

    [Fact]
    public void A_cause_the_rest_has_more_of_leads_only_when_no_cause_is_over_represented()
    {
        CauseRow Lifted(string name, double share, double rest, CauseKind kind) =>
            new(name, "thread", CauseUnit.Milliseconds, share, rest, share / rest, share * 100, rest * 100, kind, 0, false, true);
        var sleep = Lifted("off CPU, asleep (a wait, lock or timer), woken by an interrupt or the kernel", 0.36, 0.47, CauseKind.OffCpu);
        var hog = Lifted("waiting for a CPU (runnable, not run), held by kdamond.0 (pid 71)", 0.15, 0.001, CauseKind.CpuWait);

        Assert.Equal(hog.Cause, Verdicts.Build([sleep, hog], LatencyBasis.Response, 100, eventBasedOnly: false).Cause);
        Assert.Equal(sleep.Cause, Verdicts.Build([sleep], LatencyBasis.Response, 100, eventBasedOnly: false).Cause);
    }

    [Fact]
    public void Unexplained_queueing_asks_for_the_scheduler_only_when_it_was_not_recorded()
    {
        CauseRow[] rows =
        [
            Row("earlier requests on the same thread (queued behind them)", 0.8, CauseKind.EarlierRequests),
            Row("lock contention (ContentionStart/Stop)", 0.08, CauseKind.Contention),
            Row("waiting for a CPU (runnable, not run), held by kdamond.0 (pid 71)", 0.06, CauseKind.CpuWait),
            Row("waiting for a CPU (runnable, not run), held by redis-benchmark (pid 900)", 0.05, CauseKind.CpuWait),
        ];

        var withPerf = Verdicts.Sentence(Verdicts.Build(rows, LatencyBasis.Response, 100, eventBasedOnly: true, schedulerRecorded: true), "slowest 1%", 400, 0.2, 1.0);
        var without = Verdicts.Sentence(Verdicts.Build(rows, LatencyBasis.Response, 100, eventBasedOnly: true), "slowest 1%", 400, 0.2, 1.0);

        Assert.Contains("waited for a CPU for 11% of the slow set's time in all", withPerf, StringComparison.Ordinal);
        Assert.DoesNotContain("--sampler perf", withPerf, StringComparison.Ordinal);
        Assert.Contains("nothing recorded the scheduler (record with --sampler perf)", without, StringComparison.Ordinal);
    }
}
