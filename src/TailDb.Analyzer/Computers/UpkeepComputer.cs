using Microsoft.Diagnostics.Tracing;
using TailDb.Analyzer.Traces;
using TailDb.Tracing;

namespace TailDb.Analyzer.Computers;

/// <summary>The store's own upkeep, which should never be what a request waits for.</summary>
internal enum UpkeepKind
{
    Compaction,
    CacheEviction,
}

/// <summary>
/// The store's upkeep windows: TailDb's CompactionStart/Stop and CacheEvictionStart/Stop, paired on
/// the thread that ran them (the compactor's, the evictor's, or a request's when upkeep rides on one).
/// A window open when the trace ends runs to the end.
/// </summary>
internal sealed class UpkeepComputer : ITraceComputer
{
    private readonly Dictionary<(int Thread, UpkeepKind Kind), double> _open = [];

    /// <summary>Tag = (int)<see cref="UpkeepKind"/>.</summary>
    public List<TimeWindow> Windows { get; } = [];

    public void Attach(TraceEventDispatcher source)
    {
        source.OnProvider(TailDbEventContract.ProviderName, OnEvent);
    }

    public void Complete(double traceEndMSec)
    {
        foreach (var ((thread, kind), start) in _open)
        {
            Windows.Add(new TimeWindow(start, Math.Max(start, traceEndMSec), thread, (int)kind));
        }

        _open.Clear();
    }

    private void OnEvent(TraceEvent data)
    {
        (UpkeepKind Kind, bool Start)? which = (int)data.ID switch
        {
            TailDbEventContract.EventIds.CompactionStart => (UpkeepKind.Compaction, true),
            TailDbEventContract.EventIds.CompactionStop => (UpkeepKind.Compaction, false),
            TailDbEventContract.EventIds.CacheEvictionStart => (UpkeepKind.CacheEviction, true),
            TailDbEventContract.EventIds.CacheEvictionStop => (UpkeepKind.CacheEviction, false),
            _ => null,
        };
        if (which is not { } upkeep)
        {
            return;
        }

        var key = (data.ThreadID, upkeep.Kind);
        if (upkeep.Start)
        {
            _open[key] = data.TimeStampRelativeMSec;
        }
        else if (_open.Remove(key, out var start))
        {
            Windows.Add(new TimeWindow(start, Math.Max(start, data.TimeStampRelativeMSec), data.ThreadID, (int)upkeep.Kind));
        }
    }
}
