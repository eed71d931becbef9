using TailDb.LoadTest.Scenarios;
using TailDb.LoadTest.Tests.Harness;

namespace TailDb.LoadTest.Tests.Scenarios;

public sealed class ScenarioCommandTests
{
    [Fact]
    public async Task List_names_every_story_with_its_seed_and_how_long_it_takes()
    {
        var run = await LoadTestProcess.RunAsync(["scenario", "list"]);
        Assert.Equal(0, run.ExitCode);
        foreach (IScenario story in ScenarioCatalog.All)
        {
            Assert.Contains($"{story.Name} (seed {story.Seed}, about ", run.Stdout, StringComparison.Ordinal);
            Assert.Contains(story.Shows, run.Stdout, StringComparison.Ordinal);
        }
    }

    [Fact]
    public async Task An_unknown_story_is_one_line_naming_the_stories_there_are()
    {
        var run = await LoadTestProcess.RunAsync(["scenario", "fan-in"]);
        Assert.Equal((int)ExitCode.InvalidArguments, run.ExitCode);
        string line = run.OneErrorLine();
        Assert.Contains("no scenario 'fan-in'", line, StringComparison.Ordinal);
        Assert.Contains("gc-modes", line, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_measured_phase_too_short_is_refused_before_anything_runs()
    {
        var run = await LoadTestProcess.RunAsync(["scenario", "all", "--duration", "0.1"]);
        Assert.Equal((int)ExitCode.InvalidArguments, run.ExitCode);
        Assert.Contains("--duration", run.OneErrorLine(), StringComparison.Ordinal);
    }

    [Fact]
    public void Every_story_estimates_more_time_for_longer_runs()
    {
        var brief = new ScenarioSettings { DurationSeconds = 1 };
        var longer = new ScenarioSettings { DurationSeconds = 10 };
        Assert.All(ScenarioCatalog.All, s => Assert.True(longer.Estimate(s.Runs(longer)) > brief.Estimate(s.Runs(brief)), s.Name));
    }
}
