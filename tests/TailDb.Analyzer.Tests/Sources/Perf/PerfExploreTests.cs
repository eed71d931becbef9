using TailDb.Analyzer.Scheduling;
using TailDb.Analyzer.Sources.Perf;
using TailDb.Analyzer.Traces;
using Xunit.Abstractions;

namespace TailDb.Analyzer.Tests.Sources.Perf;

public sealed class PerfExploreTests(ITestOutputHelper output)
{
    [Fact]
    public void Explore()
    {
        var trace = Environment.GetEnvironmentVariable("TAILDB_EXPLORE");
        if (trace is null) return;
        var source = PerfSource.TryRead(trace, TraceKind.NetTrace)!;
        output.WriteLine($"events {source.Events}, samples {source.Samples.Samples.Count}, stacks {source.Samples.Stacks.Count}, switches {source.Scheduler.Switches}, wakeups {source.Scheduler.Wakeups}");
        output.WriteLine($"first sample {source.Samples.Samples[0].TimeRelativeMSec:0.000} last {source.Samples.Samples[^1].TimeRelativeMSec:0.000}");
        foreach (var thread in source.Scheduler.Threads)
        {
            var spans = source.Scheduler.SpansOf(thread);
            var byState = new double[4];
            foreach (var s in spans) byState[(int)s.State] += s.StopMSec - s.StartMSec;
            output.WriteLine($"{thread} {source.Scheduler.Identify(thread).Command}: {spans.Length} spans, run {byState[0]:0} runnable {byState[1]:0} sleep {byState[2]:0} disk {byState[3]:0} ms; first {spans[0].StartMSec:0.0}");
        }

        foreach (var stack in source.Samples.Stacks.Take(5))
        {
            output.WriteLine(string.Join(" <- ", stack.Take(6)));
        }
    }
}
