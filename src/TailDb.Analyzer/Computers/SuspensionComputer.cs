using Microsoft.Diagnostics.Tracing;
using Microsoft.Diagnostics.Tracing.Parsers.Clr;
using TailDb.Analyzer.Traces;

namespace TailDb.Analyzer.Computers;

/// <summary>
/// Runtime suspensions that are not GCs. The sample profiler suspends the runtime on every tick
/// (reason SuspendOther): on a 1 ms sampler that is a real, measurable cause of latency, so it
/// is reported like any other, not filtered as noise. Each suspension is also split at the moment
/// every thread had stopped (GCSuspendEEStop): before it, the runtime waited for running threads to
/// reach a safe point, which a thread in a long non-interruptible stretch (clearing a burst of fresh
/// allocations, a long blittable copy) can stretch to many milliseconds: that wait is the app's, not
/// the sampler's.
/// </summary>
internal sealed class SuspensionComputer : ITraceComputer
{
    private readonly Dictionary<int, (double Since, double Reached, GCSuspendEEReason Reason)> _open = [];

    /// <summary>Tag = (int)GCSuspendEEReason.</summary>
    public ChunkedBuffer<TimeWindow> Windows { get; } = new();

    /// <summary>
    /// Parallel to <see cref="Windows"/>: when every thread had stopped, or the window's start when the
    /// trace has no GCSuspendEEStop for it (then no safe-point wait is claimed).
    /// </summary>
    public ChunkedBuffer<double> ReachedMSec { get; } = new();

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
                _open[data.ThreadID] = (data.TimeStampRelativeMSec, double.NaN, data.Reason);
            }
        };
        source.Clr.GCSuspendEEStop += data =>
        {
            if (_open.TryGetValue(data.ThreadID, out var open) && double.IsNaN(open.Reached))
            {
                _open[data.ThreadID] = open with { Reached = Math.Max(open.Since, data.TimeStampRelativeMSec) };
            }
        };
        source.Clr.GCRestartEEStop += data =>
        {
            if (_open.Remove(data.ThreadID, out var open))
            {
                Add(open, data.TimeStampRelativeMSec);
            }
        };
    }

    public void Complete(double traceEndMSec)
    {
        foreach (var open in _open.Values)
        {
            Add(open, traceEndMSec);
        }

        _open.Clear();
    }

    private void Add((double Since, double Reached, GCSuspendEEReason Reason) open, double stopMSec)
    {
        var stop = Math.Max(open.Since, stopMSec);
        Windows.Add(new TimeWindow(open.Since, stop, 0, (int)open.Reason));
        ReachedMSec.Add(double.IsNaN(open.Reached) ? open.Since : Math.Min(open.Reached, stop));
    }

    public static string Describe(GCSuspendEEReason reason) => reason switch
    {
        GCSuspendEEReason.SuspendOther => "runtime suspension (SuspendOther: the sample profiler's ticks, tiering, ...)",
        GCSuspendEEReason.SuspendForDebugger or GCSuspendEEReason.SuspendForDebuggerSweep => "runtime suspension (debugger)",
        _ => $"runtime suspension ({reason})",
    };
}
