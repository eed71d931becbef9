using Microsoft.Diagnostics.Tracing;
using TailDb.Analyzer.Traces;

namespace TailDb.Analyzer.Computers;

/// <summary>Lock contention: ContentionStart to ContentionStop on the waiting thread.</summary>
internal sealed class ContentionComputer : ITraceComputer
{
    private readonly Dictionary<int, double> _open = [];

    public ChunkedBuffer<TimeWindow> Windows { get; } = new();

    public long Unpaired { get; private set; }

    public void Attach(TraceEventDispatcher source)
    {
        ArgumentNullException.ThrowIfNull(source);
        source.Clr.ContentionStart += data => _open[data.ThreadID] = data.TimeStampRelativeMSec;
        source.Clr.ContentionStop += data =>
        {
            if (_open.Remove(data.ThreadID, out var start))
            {
                Windows.Add(new TimeWindow(start, Math.Max(start, data.TimeStampRelativeMSec), data.ThreadID, 0));
            }
            else
            {
                Unpaired++;
            }
        };
    }

    public void Complete(double traceEndMSec)
    {
        foreach (var (thread, start) in _open)
        {
            Windows.Add(new TimeWindow(start, Math.Max(start, traceEndMSec), thread, 0));
        }

        _open.Clear();
    }
}
