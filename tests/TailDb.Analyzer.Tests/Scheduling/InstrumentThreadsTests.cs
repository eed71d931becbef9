using TailDb.Analyzer.Scheduling;

namespace TailDb.Analyzer.Tests.Scheduling;

public sealed class InstrumentThreadsTests
{
    private const int Traced = 100;

    [Theory]
    [InlineData(Traced, ".NET EventPipe", true)]
    [InlineData(200, "perf", true)]
    [InlineData(200, "EventPipe reade", true)]
    [InlineData(Traced, "load-0", false)]
    [InlineData(Traced, ".NET TP Worker", false)]
    [InlineData(200, ".NET EventPipe", false)]
    [InlineData(200, "perf-exec", false)]
    [InlineData(200, "stress-ng-cpu", false)]
    public void The_recordings_own_threads_are_perf_the_traced_runtimes_EventPipe_thread_and_the_recorders_reader(int processId, string command, bool instrument) =>
        Assert.Equal(instrument, InstrumentThreads.Is(new ThreadIdentity(processId, 1, command), Traced));
}
