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
    public void Event_based_only_sets_sample_causes_aside()
    {
        CauseRow[] rows = [Row("samples: app code", 0.5, CauseKind.Samples, eventBased: false), Row("JIT compilation", 0.1, CauseKind.Jit)];
        Assert.Equal("samples: app code", Verdicts.Build(rows, LatencyBasis.Response, 100, eventBasedOnly: false).Cause);
        Assert.Equal("JIT compilation", Verdicts.Build(rows, LatencyBasis.Response, 100, eventBasedOnly: true).Cause);
    }
}
