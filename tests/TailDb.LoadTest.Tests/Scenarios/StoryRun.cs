using TailDb.LoadTest.Scenarios;

namespace TailDb.LoadTest.Tests.Scenarios;

/// <summary>Runs one story short, in this process as `scenario NAME` does, and keeps what it printed.</summary>
public static class StoryRun
{
    /// <summary>Seconds enough for a few GCs and a slow set of dozens of requests; each story's test stays within about a minute.</summary>
    public static readonly ScenarioSettings Brief = new() { DurationSeconds = 2, WarmupSeconds = 1, Keys = 20_000 };

    public static async Task<(StoryOutcome Outcome, string Printed)> RunAsync(IScenario story, ScenarioSettings? settings = null)
    {
        settings ??= Brief;
        using var runner = new ScenarioRunner(story, settings, progress: null);
        StoryOutcome outcome = await story.RunAsync(runner, CancellationToken.None);
        using var printed = new StringWriter();
        StoryTable.Write(printed, story, outcome, settings);
        return (outcome, printed.ToString());
    }
}
