using TailDb.LoadTest.Scenarios;
using TailDb.LoadTest.Tests.Harness;
using Xunit.Abstractions;

namespace TailDb.LoadTest.Tests.Scenarios;

[Collection(WorkerProcessesGroup.Name)]
public sealed class RetriesScenarioTests(ITestOutputHelper output)
{
    /// <summary>
    /// The direction the story rests on, read from the client's own trace: below the stall the slow
    /// requests were retried and the verdict names the Retry activities; above it they were retried
    /// far less (none, unless the machine itself stalled a reply past 200 ms). The p99 direction is
    /// the scenario's `shown` line, not asserted: a stall is the whole slow set on both sides.
    /// </summary>
    [Fact]
    public async Task A_timeout_below_the_stall_retries_the_slow_requests_and_the_verdict_names_the_retries_while_one_above_it_does_not()
    {
        var (outcome, printed) = await StoryRun.RunAsync(new RetriesScenario());
        output.WriteLine(printed);
        StoryRow shortTimeout = outcome.Rows[0], longTimeout = outcome.Rows[1];
        // Not every slow request was retried: some waited out the stall for a pipeline slot instead.
        Assert.True(shortTimeout.Value > 0, $"{shortTimeout.Value} retries per slow request with the short timeout");
        Assert.StartsWith("Retry", shortTimeout.Verdict, StringComparison.Ordinal);
        Assert.True(longTimeout.Value < shortTimeout.Value / 2, $"{longTimeout.Value} retries per slow request with the long timeout, {shortTimeout.Value} with the short");
        Assert.DoesNotContain("Retry", longTimeout.Verdict, StringComparison.Ordinal);
        string[] header = Assert.Single(outcome.Tables)[0];
        Assert.Equal("retries", header[0]);
    }
}
