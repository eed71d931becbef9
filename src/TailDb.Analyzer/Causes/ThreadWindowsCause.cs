using TailDb.Analyzer.Computers;
using TailDb.Analyzer.Intervals;

namespace TailDb.Analyzer.Causes;

/// <summary>
/// A cause made of windows on one thread (a lock wait, a JIT compilation, an earlier request, a
/// thread off CPU): it covers a request only on the request's own thread.
/// </summary>
internal abstract class ThreadWindowsCause : CauseBase
{
    private readonly Dictionary<int, WindowIndex> _byThread = [];

    protected ThreadWindowsCause(string name, Dictionary<int, List<(double Start, double Stop)>> windowsByThread)
        : base(name)
    {
        ArgumentNullException.ThrowIfNull(windowsByThread);
        foreach (var (thread, list) in windowsByThread)
        {
            _byThread.Add(thread, new WindowIndex(list));
        }
    }

    public override CauseScope Scope => CauseScope.Thread;

    /// <summary>The one part of a request the cause can cover, or null for both.</summary>
    protected virtual RequestPart? Only => null;

    /// <summary>The windows of one thread, if it has any.</summary>
    public bool TryGetThread(int threadId, out WindowIndex windows) => _byThread.TryGetValue(threadId, out windows!);

    public override double Measure(in RequestRecord request, int requestIndex, RequestPart part, double from, double to) =>
        (Only is null || Only == part) && _byThread.TryGetValue(request.ThreadId, out var index) ? index.Overlap(from, to) : 0;

    /// <summary>Computer windows grouped by their thread.</summary>
    public static Dictionary<int, List<(double Start, double Stop)>> ByThread(ChunkedBuffer<TimeWindow> windows)
    {
        ArgumentNullException.ThrowIfNull(windows);
        var byThread = new Dictionary<int, List<(double Start, double Stop)>>();
        for (var i = 0; i < windows.Count; i++)
        {
            var window = windows[i];
            Windows.Group(byThread, window.ThreadId).Add((window.StartMSec, window.StopMSec));
        }

        return byThread;
    }
}
