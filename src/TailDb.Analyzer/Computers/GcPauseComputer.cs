using Microsoft.Diagnostics.Tracing;
using Microsoft.Diagnostics.Tracing.Parsers.Clr;
using TailDb.Analyzer.Traces;
using TailDb.Tracing;

namespace TailDb.Analyzer.Computers;

/// <summary>A stop-the-world GC pause: SuspendEE start to RestartEE stop.</summary>
/// <param name="Generation">The GC's condemned generation, -1 if no GCStart was seen (trace began mid-GC).</param>
internal readonly record struct GcPause(double StartMSec, double StopMSec, int Generation, GCReason Reason, GCType Type, int GcNumber)
{
    public double DurationMSec => StopMSec - StartMSec;
}

/// <summary>
/// GC pauses from the GC events, not from samples: the sample profiler takes none while a GC
/// runs, so a CPU profile cannot show them (docs/architecture.md, "Platform facts"). A pause stops every managed thread.
/// </summary>
internal sealed class GcPauseComputer : ITraceComputer
{
    private GcPausePairing<double> _pause;
    private (int Generation, GCReason Reason, GCType Type, int Number)? _inPause;
    private (int Generation, GCReason Reason, GCType Type, int Number)? _inFlight;
    private (int Generation, GCReason Reason, GCType Type, int Number)? _background;

    public List<GcPause> Pauses { get; } = [];

    /// <summary>GCs started, per generation (0, 1, 2), background ones included.</summary>
    public long[] GcsByGeneration { get; } = new long[3];

    public void Attach(TraceEventDispatcher source)
    {
        ArgumentNullException.ThrowIfNull(source);
        source.Clr.GCSuspendEEStart += data =>
        {
            if (_pause.Begin(data.ThreadID, (uint)data.Reason, data.TimeStampRelativeMSec))
            {
                _inPause = null;
            }
        };
        source.Clr.GCStart += data =>
        {
            var generation = Math.Clamp(data.Depth, 0, 2);
            GcsByGeneration[generation]++;
            var gc = (generation, data.Reason, data.Type, data.Count);
            _inFlight = gc;
            if (data.Type == GCType.BackgroundGC)
            {
                _background = gc;
            }

            if (_pause.OpenSince is not null)
            {
                _inPause = gc;
            }
        };
        source.Clr.GCStop += data =>
        {
            if (_inFlight is { } gc && gc.Number == data.Count)
            {
                _inFlight = null;
            }

            if (_background is { } background && background.Number == data.Count)
            {
                _background = null;
            }
        };
        source.Clr.GCRestartEEStop += data =>
        {
            // GcPauses: only the suspending thread's restart ends the pause.
            if (!_pause.TryEnd(data.ThreadID, out var since))
            {
                return;
            }

            // A background GC's later pauses have no GCStart of their own: they belong to the background
            // GC in flight (a foreground GC may have started and ended inside it meanwhile).
            var gc = _inPause ?? _background ?? _inFlight;
            Pauses.Add(new GcPause(since, Math.Max(since, data.TimeStampRelativeMSec),
                gc?.Generation ?? -1, gc?.Reason ?? default, gc?.Type ?? default, gc?.Number ?? -1));
            _inPause = null;
        };
    }

    public void Complete(double traceEndMSec)
    {
        if (_pause.TryClose(out var since))
        {
            // The trace ended inside a pause: it lasted at least until the end.
            var gc = _inPause ?? _background ?? _inFlight;
            Pauses.Add(new GcPause(since, Math.Max(since, traceEndMSec), gc?.Generation ?? -1, gc?.Reason ?? default, gc?.Type ?? default, gc?.Number ?? -1));
        }

    }

    public static bool IsGcSuspension(GCSuspendEEReason reason) => GcPauses.IsGcSuspension((uint)reason);
}
