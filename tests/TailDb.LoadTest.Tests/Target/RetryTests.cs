using TailDb.LoadTest.Reporting;
using TailDb.LoadTest.Target;
using TailDb.LoadTest.Tests.Harness;
using TailDb.LoadTest.Workloads;

namespace TailDb.LoadTest.Tests.Target;

/// <summary>Timeouts, retries, failures and error replies, against a server that misbehaves on purpose.</summary>
[Collection(WorkerProcessesGroup.Name)]
public sealed class RetryTests
{
    private const int SilentConnection = FakeRespServer.FirstPoolConnection;

    // Long enough that, on a loaded machine, only the hung connection's requests time out.
    private const int Timeout = 250;

    private static Func<int, string, string?> HangsInTheMeasuredPhase()
    {
        var measuring = false;
        var hung = false;
        return (connection, command) =>
        {
            if (command == "INFO")
            {
                measuring = !measuring; // INFO is read just before and just after the measured phase.
            }

            if (connection == SilentConnection && (hung || (measuring && command == "GET")))
            {
                hung = true;
                return null;
            }

            return FakeRespServer.Normal(command);
        };
    }

    [Fact]
    public void ARequestTimedOutOnASilentConnectionIsRetriedOnAnotherAndAnswered()
    {
        using var server = new FakeRespServer((connection, command) => connection == SilentConnection ? null : FakeRespServer.Normal(command));
        WorkloadOptions workload = RemoteSessionTests.Short(rate: 1000);

        WorkerResult result = RemoteSessionTests.Run(
            new TargetAddress(TargetKind.Endpoint, "127.0.0.1", server.Port), workload,
            new ClientOptions { Connections = 3, Pipeline = 2, TimeoutMilliseconds = Timeout, Retries = 2 });

        // The silent connection's slots fill during the fill phase and never free, so the measured
        // phase may send nothing there: its timeouts are the fill's. Either way nothing is lost.
        RemoteSessionTests.AssertEveryScheduledRequestAnswered(result, workload);
    }

    [Fact]
    public void TimeoutsAndRetriesAreCountedInTheMeasuredPhase()
    {
        // The first pool connection hangs at its first GET of the measured phase (RESP answers in
        // order, so a hung connection answers nothing after it): timeouts happen while measuring,
        // and the other connection answers the retries.
        using var server = new FakeRespServer(HangsInTheMeasuredPhase());
        WorkloadOptions workload = RemoteSessionTests.Short(rate: 1000);

        WorkerResult result = RemoteSessionTests.Run(
            new TargetAddress(TargetKind.Endpoint, "127.0.0.1", server.Port), workload,
            new ClientOptions { Connections = 2, Pipeline = 4, TimeoutMilliseconds = Timeout, Retries = 2 });

        ClientCounts counts = result.Client!.Counts;
        Assert.True(counts.Timeouts > 0, "no request timed out");
        Assert.Equal(counts.Timeouts, counts.Retries);
        RemoteSessionTests.AssertEveryScheduledRequestAnswered(result, workload);
        // A retried request's queue includes its first attempt's timeout and the backoff.
        Assert.True(result.Client.Queue.Max >= Timeout * 1_000_000L, $"queue max {result.Client.Queue.Max} ns");
    }

    [Fact]
    public void WithoutRetriesATimedOutRequestFailsAndStaysInTheTail()
    {
        using var server = new FakeRespServer(HangsInTheMeasuredPhase());
        WorkloadOptions workload = RemoteSessionTests.Short(rate: 1000);

        WorkerResult result = RemoteSessionTests.Run(
            new TargetAddress(TargetKind.Endpoint, "127.0.0.1", server.Port), workload,
            new ClientOptions { Connections = 2, Pipeline = 4, TimeoutMilliseconds = Timeout, Retries = 0 });

        ClientCounts counts = result.Client!.Counts;
        Assert.True(counts.Failures > 0, "no request failed");
        Assert.Equal(counts.Timeouts, counts.Failures);
        Assert.Equal(0, counts.Retries);
        KindLatency failed = Assert.Single(result.Kinds, k => k.Kind == "failed");
        Assert.Equal(counts.Failures, failed.Corrected.Count);
        Assert.True(failed.Corrected.P50 >= Timeout * 1_000_000L, $"failed p50 {failed.Corrected.P50} ns");
        Assert.Equal(result.Operations, result.Overall.Corrected.Count);
    }

    [Fact]
    public void AnErrorReplyToTheFillIsOneClearFailure()
    {
        using var server = new FakeRespServer((_, command) => command == "SET" ? "-ERR read only replica\r\n" : FakeRespServer.Normal(command));

        var error = Assert.Throws<LoadTestException>(() => RemoteSessionTests.Run(
            new TargetAddress(TargetKind.Endpoint, "127.0.0.1", server.Port), RemoteSessionTests.Short(), new ClientOptions()));

        Assert.Equal(ExitCode.TargetFailed, error.ExitCode);
        Assert.Contains("the server answered SET with -ERR read only replica", error.Message, StringComparison.Ordinal);
    }
}
