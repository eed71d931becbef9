using System.Globalization;
using TailDb.LoadTest.Scenarios;
using TailDb.LoadTest.Tests.Harness;
using Xunit.Abstractions;

namespace TailDb.LoadTest.Tests.Scenarios;

[Collection(WorkerProcessesGroup.Name)]
public sealed class PoolWaitScenarioTests(ITestOutputHelper output)
{
    /// <summary>
    /// What the client saw and the server did not, on the small pool's side. The before/after
    /// direction (the small pool's p99 above the fitting pool's) is the scenario's `shown` line, not
    /// asserted: on a loaded 2-core machine eight connections' reader threads stall as often as one
    /// connection queues (a run at load 34: 474 pool waits with one connection, 761 with eight).
    /// The small pool's verdict column is `slowest` on the client's own trace.
    /// </summary>
    [Fact]
    public async Task With_a_pool_too_small_the_client_waits_for_connections_in_a_queue_the_servers_latency_never_shows()
    {
        var (outcome, printed) = await StoryRun.RunAsync(new PoolWaitScenario());
        output.WriteLine(printed);
        string[] header = Assert.Single(outcome.Tables)[0], smallPool = outcome.Tables[0][1];
        Assert.True(Cell(header, smallPool, "pool waits") > 0, "no request waited for the pool of one");
        double queueP99 = Cell(header, smallPool, "client queue p99"), clientP99 = Cell(header, smallPool, "client p99"), serverP99 = Cell(header, smallPool, "server p99");
        Assert.True(queueP99 > serverP99, $"small pool: client queue p99 {queueP99} ms, server p99 {serverP99} ms");
        Assert.True(clientP99 > serverP99, $"small pool: client p99 {clientP99} ms, server p99 {serverP99} ms");
        Assert.Contains("the client's connection pool", outcome.Finding, StringComparison.Ordinal);
        // The client's own trace: its slowest requests' verdict names the PoolWait activity nested in them.
        Assert.StartsWith("PoolWait", outcome.Rows[0].Verdict, StringComparison.Ordinal);
    }

    private static double Cell(string[] header, string[] row, string column) =>
        double.Parse(row[Array.IndexOf(header, column)], NumberStyles.Float | NumberStyles.AllowThousands, CultureInfo.InvariantCulture);
}
