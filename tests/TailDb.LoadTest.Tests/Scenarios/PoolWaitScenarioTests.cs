using TailDb.LoadTest.Scenarios;
using TailDb.LoadTest.Tests.Harness;
using Xunit.Abstractions;

namespace TailDb.LoadTest.Tests.Scenarios;

[Collection(WorkerProcessesGroup.Name)]
public sealed class PoolWaitScenarioTests(ITestOutputHelper output)
{
    [Fact]
    public async Task A_pool_too_small_shows_in_the_clients_queue_and_the_verdict_names_the_pool()
    {
        var (outcome, printed) = await StoryRun.RunAsync(new PoolWaitScenario());
        output.WriteLine(printed);
        StoryRow small = outcome.Rows[0], fits = outcome.Rows[1];
        Assert.True(small.Value > fits.Value, $"client queue p99: pool of {PoolWaitScenario.SmallPool} {small.Value} ms, pool of {PoolWaitScenario.Threads} {fits.Value} ms");
        Assert.True(small.P99Nanoseconds > fits.P99Nanoseconds, "the client's p99 did not grow with the small pool");
        // The client saw latency the server did not: the small pool's client p99 above the server's own.
        string[] header = Assert.Single(outcome.Tables)[0], smallPool = outcome.Tables[0][1];
        double clientP99 = Cell(header, smallPool, "client p99"), serverP99 = Cell(header, smallPool, "server p99");
        Assert.True(clientP99 > serverP99, $"small pool: client p99 {clientP99} ms, server p99 {serverP99} ms");
        Assert.StartsWith("the client's connection pool", outcome.Finding.Replace("verdict: ", "", StringComparison.Ordinal), StringComparison.Ordinal);
    }

    private static double Cell(string[] header, string[] row, string column) =>
        double.Parse(row[Array.IndexOf(header, column)], System.Globalization.NumberStyles.Float | System.Globalization.NumberStyles.AllowThousands, System.Globalization.CultureInfo.InvariantCulture);
}
