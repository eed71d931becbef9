using Microsoft.Diagnostics.Tracing;
using Microsoft.Diagnostics.Tracing.Parsers.Clr;
using TailDb.Analyzer.Sources.NetTrace;
using TailDb.Analyzer.Stacks;
using TailDb.Analyzer.Tests.TraceGen.Workloads;

namespace TailDb.Analyzer.Tests.Stacks;

/// <summary>
/// A killed process writes no rundown, so code that ran before the session (ReadyToRun framework
/// code) has no name in the trace. The reader must say "unresolved", never guess.
/// </summary>
[Collection(RecordedTracesGroup.Name)]
public sealed class KilledProcessStacksTests(RecordedTraces traces)
{
    [Fact]
    public void KilledProcessLeavesUnnamedCodeUnresolvedInsteadOfGuessing()
    {
        var set = new NetTraceStackSampleReader().Read(traces.Killed);
        var (loads, lastDispatchedMSec) = JittedMethodLoads(traces.Killed);

        var frames = set.Samples.SelectMany(s => set.Stacks[s.StackId]).Distinct().ToList();
        var unresolved = frames.Where(FrameNames.IsUnresolved).ToList();
        Assert.NotEmpty(unresolved);
        Assert.Equal(unresolved.Count, set.UnresolvedFrames);
        foreach (var frame in unresolved)
        {
            var address = Convert.ToUInt64(frame["unresolved!0x".Length..], 16);
            Assert.DoesNotContain(loads, l => address >= l.Start && address < l.Start + l.Size);
        }

        // Every name given comes from a method the trace itself says was jitted. TraceEvent sorts
        // events by time between sequence points, so on a killed trace it never dispatches those
        // after the last one; our reader does. A method is loaded before it is sampled, so samples
        // up to TraceEvent's last dispatched event can only name methods whose loads it dispatched.
        var loadedNames = loads.Select(l => l.Name).ToHashSet();
        var comparable = set.Samples.Where(s => s.TimeRelativeMSec <= lastDispatchedMSec)
            .SelectMany(s => set.Stacks[s.StackId]).Distinct().Where(f => !FrameNames.IsUnresolved(f)).ToList();
        Assert.NotEmpty(comparable);
        Assert.All(comparable, f => Assert.Contains(f, loadedNames));
    }

    [Fact]
    public void KilledProcessStillNamesCodeJittedDuringTheSession()
    {
        var set = new NetTraceStackSampleReader().Read(traces.Killed);

        Assert.Contains(set.Samples, s => set.Stacks[s.StackId] is [CpuBurner.KnownFrame, ..]);
    }

    [Fact]
    public void TraceLogOracleRejectsTheKilledTraceAsAFormatError()
    {
        var error = Assert.Throws<TraceFormatException>(() => new TraceLogStackSampleReader().Read(traces.Killed));

        Assert.Contains(traces.Killed, error.Message, StringComparison.Ordinal);
    }

    // The burn thread's stack bottoms out in framework code that ran before the session: the
    // rundown names it in the complete trace; the killed trace has only an address for it.
    [Fact]
    public void RundownNamesThePreSessionCodeThatTheKilledTraceLeavesUnresolved()
    {
        static List<IReadOnlyList<string>> BurnStacks(StackSampleSet set) =>
            [.. set.Samples.Select(s => set.Stacks[s.StackId]).Where(s => s is [CpuBurner.KnownFrame, ..])];

        var complete = BurnStacks(new NetTraceStackSampleReader().Read(traces.Complete));
        var killed = BurnStacks(new NetTraceStackSampleReader().Read(traces.Killed));

        Assert.NotEmpty(complete);
        Assert.NotEmpty(killed);
        Assert.All(complete, stack => Assert.DoesNotContain(stack, FrameNames.IsUnresolved));
        Assert.All(killed, stack => Assert.True(FrameNames.IsUnresolved(stack[^1]), $"outermost frame {stack[^1]}"));
    }

    // TraceEvent's own view of the session's method loads. Its parser throws at the end of a
    // killed trace (no end marker), after dispatching every event it could read.
    private static (List<(ulong Start, ulong Size, string Name)> Loads, double LastDispatchedMSec) JittedMethodLoads(string path)
    {
        var loads = new List<(ulong, ulong, string)>();
        double last = 0;
        using var source = new EventPipeEventSource(path);
        source.AllEvents += e => last = Math.Max(last, e.TimeStampRelativeMSec);
        source.Clr.MethodLoadVerbose += (MethodLoadUnloadVerboseTraceData e) =>
        {
            if (e.IsJitted)
            {
                loads.Add((e.MethodStartAddress, (ulong)e.MethodSize, FrameNames.Method(e.MethodNamespace, e.MethodName, e.MethodSignature)));
            }
        };
        try
        {
            source.Process();
        }
        catch (FormatException)
        {
            // Expected: the stream has no end marker.
        }

        return (loads, last);
    }
}
