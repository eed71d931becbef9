using TailDb.Analyzer.Sources.Etw;
using TailDb.Analyzer.Stacks;
using TailDb.Analyzer.Tests.Sources.Etw;
using Xunit.Abstractions;

namespace TailDb.Analyzer.Tests.Stacks;

/// <summary>Kernel CPU samples of one process of a real PerfView trace, with their stacks resolved.</summary>
public sealed class EtwStackSampleReaderTests(ITestOutputHelper output)
{
    [SharedEtlFact]
    public void TheChosenProcessSamplesAreTheBaselinesNonIdleSamplesOfThatProcessWithResolvedStacks()
    {
        // Test.x64 (pid 3676), the process with the most GCs.
        var set = new EtwStackSampleReader(3676).Read(SharedEtl.Path("net.4.5.2.x64.etl.zip"));
        var all = new EtwStackSampleReader(null).Read(SharedEtl.Path("net.4.5.2.x64.etl.zip"));
        output.WriteLine($"{set.Samples.Count} samples of 3676, {all.Samples.Count} non-idle samples in all, {set.Stacks.Count} stacks, {set.UnresolvedFrames} unresolved");
        foreach (var group in set.Samples.GroupBy(s => s.StackId).OrderByDescending(g => g.Count()).Take(5))
        {
            output.WriteLine($"{group.Count()} x {string.Join(" <- ", set.Stacks[group.Key].Take(8))}");
        }

        // The baseline counts 6,320 samples machine-wide: all but the idle thread's, whose DPC/ISR
        // samples TraceLog keeps and the reader leaves out (they belong to no process).
        var idleInterrupts = 0;
        using (var source = new EtwEventSource(SharedEtl.Path("net.4.5.2.x64.etl.zip")))
        {
            source.Kernel.PerfInfoSample += data => idleInterrupts += data.ThreadID == 0 && data.NonProcess ? 1 : 0;
            source.Process();
        }

        Assert.Equal(6320, all.Samples.Count + idleInterrupts);
        Assert.InRange(set.Samples.Count, 1, all.Samples.Count - 1);

        // Stack walks were on: most samples have more than their own frame, and managed code is named.
        Assert.True(set.Samples.Count(s => set.Stacks[s.StackId].Count > 1) > set.Samples.Count / 2);
        Assert.Contains(set.Samples, s => s.Managed);
        Assert.Contains(set.Stacks.SelectMany(f => f), f => f.StartsWith("ntoskrnl.exe!", StringComparison.OrdinalIgnoreCase) || f.StartsWith("ntdll.dll!", StringComparison.OrdinalIgnoreCase));
    }
}
