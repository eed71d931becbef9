namespace TailDb.Analyzer.Stacks;

/// <summary>
/// Reads the sample profiler's thread samples with their managed stacks resolved to method names.
/// Two implementations must agree frame for frame: one built on TraceEvent's TraceLog (simple,
/// correct, slow: converts the whole trace to ETLX first) and a focused streaming reader of the
/// .nettrace blocks (docs/stacks.md), which is what `slowest` uses.
/// </summary>
public interface IStackSampleReader
{
    StackSampleSet Read(string nettracePath, CancellationToken cancellationToken = default);
}

/// <param name="TimeRelativeMSec">On the same clock as TraceEvent's TimeStampRelativeMSec for the same file.</param>
/// <param name="ThreadId">The sampled thread (not the sampler's).</param>
/// <param name="StackId">Index into <see cref="StackSampleSet.Stacks"/>; equal stacks share an id.</param>
/// <param name="Managed">The sample's own type field; early .NET 10 builds mark every sample External (runtime#123996).</param>
public readonly record struct StackSample(double TimeRelativeMSec, int ThreadId, int StackId, bool Managed);

/// <summary>Samples in time order and their interned stacks, leaf frame first.</summary>
public sealed class StackSampleSet
{
    public StackSampleSet(IReadOnlyList<StackSample> samples, IReadOnlyList<IReadOnlyList<string>> stacks, int unresolvedFrames)
    {
        Samples = samples;
        Stacks = stacks;
        UnresolvedFrames = unresolvedFrames;
    }

    public IReadOnlyList<StackSample> Samples { get; }

    /// <summary>Each stack leaf first; a frame is "Namespace.Type.Method(args)" as TraceEvent spells it
    /// (argument list from the runtime's signature, so overloads stay apart) or, when no method
    /// range covers its address (a killed process has no rundown), "unresolved!0x7f...".</summary>
    public IReadOnlyList<IReadOnlyList<string>> Stacks { get; }

    /// <summary>Distinct code addresses that no MethodLoad or rundown range named.</summary>
    public int UnresolvedFrames { get; }

    /// <summary>
    /// The time one sample stands for, when the sampler states it (perf's rate); NaN when it must be
    /// measured from the samples (EventPipe's interval differs across .NET 10 builds).
    /// </summary>
    public double IntervalMSec { get; init; } = double.NaN;

    /// <summary>A kernel sampler's set: threads are sampled only while on a CPU (EventPipe's sampler also samples blocked threads).</summary>
    public bool OnCpuOnly { get; init; }
}
