using TailDb.Analyzer.Computers;
using TailDb.Analyzer.Intervals;

namespace TailDb.Analyzer.Causes;

/// <summary>A cause made of instants on one thread: counted only in the parts of that thread's requests they fall in.</summary>
internal abstract class ThreadEventsCause : CauseBase
{
    private readonly Dictionary<int, PointIndex> _byThread = [];

    protected ThreadEventsCause(string name, Dictionary<int, List<double>> timesByThread)
        : base(name)
    {
        ArgumentNullException.ThrowIfNull(timesByThread);
        foreach (var (thread, list) in timesByThread)
        {
            list.Sort();
            _byThread.Add(thread, new PointIndex([.. list]));
        }
    }

    public override CauseScope Scope => CauseScope.Thread;

    public override CauseUnit Unit => CauseUnit.Events;

    public override double Measure(in RequestRecord request, int requestIndex, RequestPart part, double from, double to) =>
        _byThread.TryGetValue(request.ThreadId, out var index) ? index.Count(from, to) : 0;
}
