using TailDb.Analyzer.Attribution;
using TailDb.Analyzer.Sources;
using TailDb.Analyzer.Stacks;
using TailDb.Analyzer.Tests.Recording;

namespace TailDb.Analyzer.Tests.Attribution;

[Collection(WorkloadTracesGroup.Name)]
public sealed class ProfileBuilderTests(WorkloadTraces traces)
{
    private const string Caveat = "not shares of the slow set's time";

    [Fact]
    public void Slow_windows_shorter_than_a_sample_say_their_rows_are_where_the_ticks_fell_and_longer_ones_do_not()
    {
        var shortWindows = SlowestAnalysis.Run(new SlowestSettings(traces.GroundTruth, RequestSelection.Default, ThresholdMs: 0.001), new NetTraceStackSampleReader());
        var longWindows = SlowestAnalysis.Run(new SlowestSettings(traces.GroundTruth, RequestSelection.Default, ThresholdMs: 20), new NetTraceStackSampleReader());

        Assert.Contains(Caveat, shortWindows.Profile.SlowWindowsBasis, StringComparison.Ordinal);
        Assert.Contains("longer than the slow threshold (0.001 ms)", shortWindows.Profile.SlowWindowsBasis, StringComparison.Ordinal);
        Assert.DoesNotContain(Caveat, longWindows.Profile.SlowWindowsBasis, StringComparison.Ordinal);
    }
}
