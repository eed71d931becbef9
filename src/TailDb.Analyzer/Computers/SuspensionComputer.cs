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
    private double _openSince = double.NaN;
    private GCSuspendEEReason _openReason;

    /// <summary>Tag = (int)GCSuspendEEReason.</summary>
    public ChunkedBuffer<TimeWindow> Windows { get; } = new();

    public void Attach(TraceEventDispatcher source)
    {
        ArgumentNullException.ThrowIfNull(source);
        source.Clr.GCSuspendEEStart += data =>
        {
            if (!GcPauseComputer.IsGcSuspension(data.Reason))
            {
                _openSince = data.TimeStampRelativeMSec;
                _openReason = data.Reason;
            }
            else
            {
                _openSince = double.NaN;
            }
        };
        source.Clr.GCRestartEEStop += data =>
        {
            if (!double.IsNaN(_openSince))
            {
                Windows.Add(new TimeWindow(_openSince, Math.Max(_openSince, data.TimeStampRelativeMSec), 0, (int)_openReason));
                _openSince = double.NaN;
            }
        };
    }

    public void Complete(double traceEndMSec)
    {
        if (!double.IsNaN(_openSince))
        {
            Windows.Add(new TimeWindow(_openSince, Math.Max(_openSince, traceEndMSec), 0, (int)_openReason));
            _openSince = double.NaN;
        }
    }

    public static string Describe(GCSuspendEEReason reason) => reason switch
    {
        GCSuspendEEReason.SuspendOther => "runtime suspension (SuspendOther: the sample profiler's ticks, tiering, ...)",
        GCSuspendEEReason.SuspendForDebugger or GCSuspendEEReason.SuspendForDebuggerSweep => "runtime suspension (debugger)",
        _ => $"runtime suspension ({reason})",
    };
}
