namespace TailDb.Analyzer.Causes;

/// <summary>
/// A sampler tick's wait for every thread to reach a safe point, past the ticks' usual wait: a thread
/// was slow to stop (non-interruptible work, or not run by the OS) and the tick stalled everyone
/// meanwhile. Still the measurement's cost (without the sampler no one would have waited), but
/// <see cref="Holders"/> names the threads that would hold up a GC's suspension the same way.
/// </summary>
internal sealed class SafePointWaitCause(List<(double Start, double Stop)> windows, IReadOnlyList<(string Frame, int Ticks)> holders)
    : ProcessWindowsCause(Title, windows)
{
    public const string Title = "sample profiler ticks held up waiting for a thread to reach a safe point (measurement overhead)";

    public override CauseKind Kind => CauseKind.SafePointWait;

    public override bool IsMeasurement => true;

    /// <summary>What the threads not serving requests ran in the held-up ticks, by leaf frame, most often first.</summary>
    public IReadOnlyList<(string Frame, int Ticks)> Holders { get; } = holders;
}
