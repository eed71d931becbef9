using System.Diagnostics;
using Microsoft.Diagnostics.Tracing;
using TailDb.Analyzer.Stacks;

namespace TailDb.Analyzer.Tests.TraceGen.Measuring;

/// <summary>One timed pass over a trace per process, so /usr/bin/time -v reports its peak memory alone.</summary>
public static class Measurement
{
    public static int Run(string what, string file)
    {
        var clock = Stopwatch.StartNew();
        string result;
        switch (what)
        {
            case "tracelog-convert":
            {
                var etlx = Path.Combine(Path.GetTempPath(), $"measure-{Guid.NewGuid():N}.etlx");
                Microsoft.Diagnostics.Tracing.Etlx.TraceLog.CreateFromEventPipeDataFile(file, etlx);
                result = $"etlx {new FileInfo(etlx).Length / 1e6:0.0} MB";
                File.Delete(etlx);
                break;
            }

            case "tracelog":
                result = Describe(new TraceLogStackSampleReader().Read(file));
                break;
            case "nettrace":
                result = Describe(new NetTraceStackSampleReader().Read(file));
                break;
            case "eventpipe":
            {
                using var source = new EventPipeEventSource(file);
                long events = 0;
                source.AllEvents += _ => events++;
                source.Process();
                result = $"{events} events";
                break;
            }

            case "eventpipe-bare":
            {
                // The parser's floor: no callbacks at all.
                using var source = new EventPipeEventSource(file);
                source.Process();
                result = "no subscribers";
                break;
            }

            case "eventpipe+nettrace":
            {
                // The analyzer's shape without its computers: one EventPipeEventSource pass for
                // everything that needs no stack, then the streaming stack reader.
                using (var source = new EventPipeEventSource(file))
                {
                    long events = 0;
                    source.AllEvents += _ => events++;
                    source.Process();
                    result = $"{events} events, ";
                }

                result += Describe(new NetTraceStackSampleReader().Read(file));
                break;
            }

            default:
                Console.Error.WriteLine($"unknown measurement '{what}'");
                return 2;
        }

        Console.WriteLine($"{what}: {clock.Elapsed.TotalSeconds:0.00} s, {result}");
        return 0;
    }

    /// <summary>Prints the most sampled stacks, for eyeballing what a reader names.</summary>
    public static int Dump(IStackSampleReader reader, string file, int top)
    {
        var set = reader.Read(file);
        Console.WriteLine(Describe(set));
        foreach (var group in set.Samples.GroupBy(s => s.StackId).OrderByDescending(g => g.Count())
            .Where((g, i) => i < top || set.Stacks[g.Key].Any(f => f.StartsWith("unresolved!", StringComparison.Ordinal))))
        {
            Console.WriteLine($"{group.Count()} samples, threads {string.Join(",", group.Select(s => s.ThreadId).Distinct())}:");
            foreach (var frame in set.Stacks[group.Key])
            {
                Console.WriteLine($"    {frame}");
            }
        }

        return 0;
    }

    /// <summary>A CPU profile of one thread-agnostic kind: the methods most often on a sampled stack
    /// (inclusive) and at its leaf (exclusive), over samples whose stack mentions <paramref name="filter"/>.</summary>
    public static int Hot(string file, string filter, int top)
    {
        var set = new NetTraceStackSampleReader().Read(file);
        var samples = set.Samples.Where(s => set.Stacks[s.StackId].Any(f => f.Contains(filter, StringComparison.Ordinal))).ToList();
        Console.WriteLine($"{samples.Count} of {set.Samples.Count} samples mention '{filter}'");
        var inclusive = samples.SelectMany(s => set.Stacks[s.StackId].Distinct()).CountBy(f => f).OrderByDescending(p => p.Value).Take(top);
        var exclusive = samples.Where(s => set.Stacks[s.StackId].Count > 0).CountBy(s => set.Stacks[s.StackId][0]).OrderByDescending(p => p.Value).Take(top);
        Console.WriteLine("inclusive:");
        foreach (var (frame, count) in inclusive)
        {
            Console.WriteLine($"  {100.0 * count / samples.Count,5:0.0}%  {frame}");
        }

        Console.WriteLine("exclusive:");
        foreach (var (frame, count) in exclusive)
        {
            Console.WriteLine($"  {100.0 * count / samples.Count,5:0.0}%  {frame}");
        }

        return 0;
    }

    /// <summary>Reads a trace with both readers and counts samples whose time, thread or frames differ.</summary>
    public static int Compare(string file)
    {
        var oracle = Flatten(new TraceLogStackSampleReader().Read(file));
        var fast = Flatten(new NetTraceStackSampleReader().Read(file));
        var differing = oracle.Count == fast.Count ? oracle.Where((s, i) => s != fast[i]).Count() : -1;
        Console.WriteLine($"tracelog {oracle.Count} samples, nettrace {fast.Count} samples, {(differing < 0 ? "counts differ" : $"{differing} differ")}");
        return differing == 0 ? 0 : 1;
    }

    private static List<(double, int, bool, string)> Flatten(StackSampleSet set) =>
        [.. set.Samples.Select(s => (s.TimeRelativeMSec, s.ThreadId, s.Managed, string.Join(" <- ", set.Stacks[s.StackId]))).Order()];

    private static string Describe(StackSampleSet set) =>
        $"{set.Samples.Count} samples, {set.Stacks.Count} stacks, {set.UnresolvedFrames} unresolved frames";
}
