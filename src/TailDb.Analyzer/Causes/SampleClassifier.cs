using TailDb.Analyzer.Computers;
using TailDb.Analyzer.Intervals;

namespace TailDb.Analyzer.Causes;

/// <summary>
/// Which cause each CPU sample stands for: its stack's category, except a sample parked at a safe
/// point, which is decided by time (<see cref="CauseOf"/>). Makes one pass over a window's samples
/// for all the <see cref="SampleCause"/>s of that window.
/// </summary>
internal sealed class SampleClassifier
{
    private readonly SampleComputer _samples;

    // GC pauses each stretched by one sampling interval: a thread parked at a safe point in there was stopped by the GC.
    private readonly WindowIndex _gcParking;

    // A kernel sampler (perf) samples the GC at work: any on-CPU sample inside a GC pause is the GC's,
    // whatever its frames (the GC faulting in fresh pages reads as page faults, its mark phase as runtime code).
    private readonly WindowIndex? _gcPauses;
    private readonly double[] _totals = new double[Enum.GetValues<SampleCategory>().Length];
    private (int Thread, double From, double To) _summed = (0, double.NaN, double.NaN);

    private SampleClassifier(ComputerSet set, SampleComputer samples)
    {
        _samples = samples;

        // The GC's own stop-the-world ends before the sampler's next tick can start: a thread still
        // parked then has not run since the GC released it, so one interval past a pause is the GC's too.
        _gcParking = new WindowIndex([.. set.Gc.Pauses.Select(p => (p.StartMSec, p.StopMSec + samples.IntervalMSec))]);
        _gcPauses = samples.Set.OnCpuOnly ? new WindowIndex([.. set.Gc.Pauses.Select(p => (p.StartMSec, p.StopMSec))]) : null;
    }

    /// <summary>Null without samples, or without a sampling interval to weigh them by.</summary>
    public static SampleClassifier? For(ComputerSet set, SampleComputer? samples)
    {
        ArgumentNullException.ThrowIfNull(set);
        return samples is null || !double.IsFinite(samples.IntervalMSec) ? null : new SampleClassifier(set, samples);
    }

    public SampleComputer Samples => _samples;

    /// <summary>The time one sample stands for.</summary>
    public double IntervalMSec => _samples.IntervalMSec;

    /// <summary>
    /// The category whose cause a sample of <paramref name="category"/> at <paramref name="sampleMSec"/>
    /// counts for, or null for none. A sample parked at a safe point counts as the GC's inside (or one
    /// interval after) a GC pause. Anywhere else the sample profiler's own suspension stopped the
    /// thread: that time is already the sampler suspensions' line (measurement overhead), so the
    /// sample counts nowhere.
    /// </summary>
    public SampleCategory? CauseOf(SampleCategory category, double sampleMSec) =>
        _gcPauses is not null && _gcPauses.Overlap(sampleMSec - 1e-6, sampleMSec + 1e-6) > 0 ? SampleCategory.Gc
        : category != SampleCategory.SafePoint ? category
        : _gcParking.Overlap(sampleMSec - 1e-6, sampleMSec + 1e-6) > 0 ? SampleCategory.Gc : null;

    /// <summary>The time <paramref name="category"/>'s samples on the thread stand for inside [from, to), at most the window.</summary>
    public double Milliseconds(int threadId, double from, double to, SampleCategory category)
    {
        if (_summed != (threadId, from, to))
        {
            Sum(threadId, from, to);
            _summed = (threadId, from, to);
        }

        // A sample stands for a whole interval, which can reach past the window's edges.
        return Math.Min(_totals[(int)category], to - from);
    }

    private void Sum(int threadId, double from, double to)
    {
        Array.Clear(_totals);
        if (!_samples.TryGetThread(threadId, out var samples))
        {
            return;
        }

        var (first, end) = samples.Range(from, to);
        for (var i = first; i < end; i++)
        {
            if (CauseOf(samples.CategoryOf(i, _samples), samples.Times[i]) is { } cause)
            {
                _totals[(int)cause] += _samples.IntervalMSec;
            }
        }
    }
}
