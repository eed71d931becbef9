using TailDb.Analyzer.Computers;
using TailDb.Analyzer.Intervals;

namespace TailDb.Analyzer.Causes;

/// <summary>
/// A cause made of windows that stop or slow every thread (a GC pause, a runtime suspension, the
/// store's upkeep): it covers whatever part of any request it overlaps.
/// </summary>
internal abstract class ProcessWindowsCause(string name, List<(double Start, double Stop)> windows) : CauseBase(name)
{
    private readonly WindowIndex _windows = new(windows);

    public override CauseScope Scope => CauseScope.Process;

    public override double Measure(in RequestRecord request, int requestIndex, RequestPart part, double from, double to) => _windows.Overlap(from, to);
}
