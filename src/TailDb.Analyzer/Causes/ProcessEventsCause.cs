using TailDb.Analyzer.Computers;
using TailDb.Analyzer.Intervals;

namespace TailDb.Analyzer.Causes;

/// <summary>A cause made of instants anywhere in the process: counted in every request part they fall in.</summary>
internal abstract class ProcessEventsCause(string name, double[] sortedTimes) : CauseBase(name)
{
    private readonly PointIndex _points = new(sortedTimes);

    public override CauseScope Scope => CauseScope.Process;

    public override CauseUnit Unit => CauseUnit.Events;

    public override double Measure(in RequestRecord request, int requestIndex, RequestPart part, double from, double to) => _points.Count(from, to);
}
