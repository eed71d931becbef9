using TailDb.Analyzer.Scheduling;
using TailDb.Analyzer.Sources.Perf;
using TailDb.Tracing.Sampling;
using Xunit.Abstractions;

namespace TailDb.Analyzer.Tests.Sources.Perf;

public sealed class PerfExploreTests(ITestOutputHelper output)
{
    [Fact]
    public void Explore()
    {
        var path = Environment.GetEnvironmentVariable("TAILDB_EXPLORE_PERF");
        if (path is null) return;
        var header = PerfFile.ReadHeader(path)!;
        var source = PerfSource.Read(path, header, 0);
        output.WriteLine($"events {source.Events}, samples {source.Samples.Samples.Count}, switches {source.Scheduler.Switches}");
        foreach (var thread in source.Scheduler.Threads)
        {
            var who = source.Scheduler.Identify(thread);
            if (!who.Command.StartsWith("load", StringComparison.Ordinal)) continue;
            foreach (var span in source.Scheduler.SpansOf(thread))
            {
                if (span.StopMSec - span.StartMSec < 10) continue;
                output.WriteLine($"{who.Command} {span.State} {span.StartMSec:0.0}..{span.StopMSec:0.0} = {span.StopMSec - span.StartMSec:0.0} ms holder {source.Scheduler.Describe(span.Holder)}");
                if (span.State != RunState.Running) continue;
                var counts = new Dictionary<string, int>();
                foreach (var s in source.Samples.Samples)
                {
                    if (s.ThreadId != thread || s.TimeRelativeMSec < span.StartMSec || s.TimeRelativeMSec > span.StopMSec) continue;
                    var stack = source.Samples.Stacks[s.StackId];
                    var key = string.Join(" <- ", stack.Take(4)) + " ... " + string.Join(" <- ", stack.Where(f => !f.StartsWith("lib", StringComparison.Ordinal) && !f.StartsWith("kernel", StringComparison.Ordinal)).Take(3));
                    counts[key] = counts.GetValueOrDefault(key) + 1;
                }
                foreach (var (k, n) in counts.OrderByDescending(c => c.Value).Take(6)) output.WriteLine($"   {n,4} {k}");
            }
        }
    }
}
