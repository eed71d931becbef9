using TailDb.Analyzer.Causes;
using TailDb.LoadTest.Scenarios;
using TailDb.LoadTest.Tests.Harness;
using Xunit.Abstractions;

namespace TailDb.LoadTest.Tests.Scenarios;

[Collection(WorkerProcessesGroup.Name)]
public sealed class GcModesScenarioTests(ITestOutputHelper output)
{
    [Fact]
    public async Task Workstations_slow_set_holds_GC_and_nogcs_holds_none()
    {
        var (outcome, printed) = await StoryRun.RunAsync(new GcModesScenario());
        output.WriteLine(printed);
        Assert.Equal(["workstation", "server", "nogc"], outcome.Rows.Select(r => r.Side));
        StoryRow workstation = outcome.Rows[0], nogc = outcome.Rows[2];
        Assert.Equal(0, nogc.Value);
        if (StoryRun.MachineMadeTheTail(workstation, output))
        {
            return;
        }

        Assert.True(workstation.Value > nogc.Value, $"workstation's GC share {workstation.Value} is not above nogc's {nogc.Value}");
        Assert.NotEqual(CauseKind.GcPause, nogc.VerdictKind);
        Assert.Contains(outcome.Shown ? "shown: " : "NOT SHOWN on this run: ", printed, StringComparison.Ordinal);
    }
}
