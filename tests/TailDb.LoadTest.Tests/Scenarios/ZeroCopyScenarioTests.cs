using TailDb.LoadTest.Scenarios;
using TailDb.LoadTest.Tests.Harness;
using Xunit.Abstractions;

namespace TailDb.LoadTest.Tests.Scenarios;

[Collection(WorkerProcessesGroup.Name)]
public sealed class ZeroCopyScenarioTests(ITestOutputHelper output)
{
    /// <summary>
    /// The share, not the verdict: on a loaded 2-core machine the copy's slow set can be mostly load
    /// threads waiting for a core (a run at load 30 named "blocked / sleeping" 25% over GC's 6%), but
    /// GC pauses are in it and zero-copy, allocating nothing, has none.
    /// </summary>
    [Fact]
    public async Task Zero_copys_GC_share_of_the_slow_set_is_below_copys()
    {
        var (outcome, printed) = await StoryRun.RunAsync(new ZeroCopyScenario());
        output.WriteLine(printed);
        StoryRow copy = outcome.Rows[0], zeroCopy = outcome.Rows[1];
        if (StoryRun.MachineMadeTheTail(copy, output))
        {
            return;
        }

        Assert.True(copy.Value > 0, "no GC pause overlapped the copy's slow set");
        Assert.True(zeroCopy.Value < copy.Value, $"zero-copy's GC share {zeroCopy.Value} is not below copy's {copy.Value}");
    }
}
