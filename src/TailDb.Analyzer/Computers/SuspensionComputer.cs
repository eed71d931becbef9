using Microsoft.Diagnostics.Tracing;
using Microsoft.Diagnostics.Tracing.Parsers.Clr;
using TailDb.Analyzer.Traces;

namespace TailDb.Analyzer.Computers;

/// <summary>
/// Runtime suspensions that are not GCs. The sample profiler suspends the runtime on every tick
/// (reason SuspendOther): on a 1 ms sampler that is a real, measurable cause of latency, so it
/// is reported like any other, not filtered as noise.
/// </summary>
internal sealed class SuspensionComputer : ITraceComputer
{
    private readonly Dictionary<int, (double Since, GCSuspendEEReason Reason)> _open = [];

    /// <summary>Tag = (int)GCSuspendEEReason.</summary>
    public ChunkedBuffer<TimeWindow> Windows { get; } = new();

    public void Attach(TraceEventDispatcher source)
    {
        ArgumentNullException.ThrowIfNull(source);
        // Keyed by the suspending thread: its RestartEE ends its suspension, whoever else suspends meanwhile.
        source.Clr.GCSuspendEEStart += data =>
        {
            if (GcPauseComputer.IsGcSuspension(data.Reason))
            {
                _open.Remove(data.ThreadID);
            }
            else
            {
                _open[data.ThreadID] = (data.TimeStampRelativeMSec, data.Reason);
            }
        };
        source.Clr.GCRestartEEStop += data =>
        {
            if (_open.Remove(data.ThreadID, out var open))
            {
                Windows.Add(new TimeWindow(open.Since, Math.Max(open.Since, data.TimeStampRelativeMSec), 0, (int)open.Reason));
            }
        };
    }

    public void Complete(double traceEndMSec)
    {
        foreach (var (since, reason) in _open.Values)
        {
            Windows.Add(new TimeWindow(since, Math.Max(since, traceEndMSec), 0, (int)reason));
        }

        _open.Clear();
    }

    public static string Describe(GCSuspendEEReason reason) => reason switch
    {
        GCSuspendEEReason.SuspendOther => "runtime suspension (SuspendOther: the sample profiler's ticks, tiering, ...)",
        GCSuspendEEReason.SuspendForDebugger or GCSuspendEEReason.SuspendForDebuggerSweep => "runtime suspension (debugger)",
        _ => $"runtime suspension ({reason})",
    };
}
