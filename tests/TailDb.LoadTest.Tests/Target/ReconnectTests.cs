using TailDb.LoadTest.Reporting;
using TailDb.LoadTest.Target;
using TailDb.LoadTest.Tests.Harness;
using TailDb.LoadTest.Workloads;

namespace TailDb.LoadTest.Tests.Target;

/// <summary>Connections the server drops are reopened; requests in flight on them are sent again.</summary>
[Collection(WorkerProcessesGroup.Name)]
public sealed class ReconnectTests
{
    private const int Timeout = 250;

    /// <summary>Closes the chosen connections at their first GET of the measured phase (INFO is read just before and after it).</summary>
    private static Func<int, string, string?> ClosesInTheMeasuredPhase(Func<int, bool> closes, Action? onClose = null)
    {
        var measuring = false;
        return (connection, command) =>
        {
            if (command == "INFO")
            {
                measuring = !measuring;
            }

            if (measuring && command == "GET" && closes(connection))
            {
                onClose?.Invoke();
                return FakeRespServer.Close;
            }

            return FakeRespServer.Normal(command);
        };
    }

    [Fact]
    public void ADroppedConnectionIsReopenedAndTheRequestsInFlightOnItAreSentAgainAndAnswered()
    {
        using var server = new FakeRespServer(ClosesInTheMeasuredPhase(connection => connection == FakeRespServer.FirstPoolConnection));
        WorkloadOptions workload = RemoteSessionTests.Short(rate: 1000);

        WorkerResult result = RemoteSessionTests.Run(
            new TargetAddress(TargetKind.Endpoint, "127.0.0.1", server.Port), workload,
            new ClientOptions { Connections = 2, Pipeline = 4, TimeoutMilliseconds = Timeout, Retries = 2 });

        ClientCounts counts = result.Client!.Counts;
        Assert.True(counts.Reconnects >= 1, $"{counts.Reconnects} reconnects");
        Assert.True(counts.LostInFlight >= 1, "the GET the server closed on was in flight");
        Assert.True(counts.Retries >= counts.LostInFlight, $"{counts.Retries} retries for {counts.LostInFlight} lost in flight");
        RemoteSessionTests.AssertEveryScheduledRequestAnswered(result, workload);
    }

    [Fact]
    public void ReopenedConnectionsKeepServingWhenTheServerDropsEveryConnectionOnce()
    {
        var dropped = new HashSet<int>();
        using var server = new FakeRespServer(ClosesInTheMeasuredPhase(connection =>
        {
            lock (dropped)
            {
                return connection >= FakeRespServer.FirstPoolConnection && dropped.Add(connection) && dropped.Count <= 2; // the pool's two first connections
            }
        }));
        WorkloadOptions workload = RemoteSessionTests.Short(rate: 1000);

        WorkerResult result = RemoteSessionTests.Run(
            new TargetAddress(TargetKind.Endpoint, "127.0.0.1", server.Port), workload,
            new ClientOptions { Connections = 2, Pipeline = 4, TimeoutMilliseconds = Timeout, Retries = 2 });

        Assert.True(result.Client!.Counts.Reconnects >= 2, $"{result.Client.Counts.Reconnects} reconnects");
        RemoteSessionTests.AssertEveryScheduledRequestAnswered(result, workload);
    }

    [Fact]
    public void WhenNoConnectionCanBeReopenedTheRunEndsInOneClearError()
    {
        FakeRespServer? server = null;
        server = new FakeRespServer(ClosesInTheMeasuredPhase(_ => true, () => server!.StopAccepting()));
        using (server)
        {
            var error = Assert.Throws<LoadTestException>(() => RemoteSessionTests.Run(
                new TargetAddress(TargetKind.Endpoint, "127.0.0.1", server.Port), RemoteSessionTests.Short(rate: 1000),
                new ClientOptions { Connections = 2, Pipeline = 4, TimeoutMilliseconds = Timeout, Retries = 0 }));

            Assert.Equal(ExitCode.TargetFailed, error.ExitCode);
            Assert.DoesNotContain('\n', error.Message);
            Assert.Contains("none could be reopened", error.Message, StringComparison.Ordinal);
        }
    }
}
