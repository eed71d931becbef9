using TailDb.Analyzer.Computers;
using TailDb.Analyzer.Intervals;

namespace TailDb.Analyzer.Causes;

/// <summary>
/// The store's compaction and cache eviction, wherever they ran: process-wide, because a
/// compaction holding the writer lock or saturating the disk slows requests on every thread.
/// Less the time the runtime had every thread stopped (a GC pause, any suspension, the sample
/// profiler's ticks): upkeep stood still then too, and the requests waited on the suspension. A
/// starved upkeep thread that held up a sampler tick for 80 ms was "running" all that while,
/// and would otherwise be blamed for what the tick did.
/// </summary>
internal sealed class StoreUpkeepCause(string name, List<(double Start, double Stop)> windows) : ProcessWindowsCause(name, windows)
{
    public override CauseKind Kind => CauseKind.StoreUpkeep;

    public static IEnumerable<ICause> From(CauseInputs inputs)
    {
        ArgumentNullException.ThrowIfNull(inputs);
        var upkeep = inputs.Set.Upkeep.Windows;
        if (upkeep.Count == 0)
        {
            yield break;
        }

        var stopped = inputs.StoppedWindows;
        var ignored = new List<(double, double)>();
        foreach (var kind in Enum.GetValues<UpkeepKind>())
        {
            var windows = new List<(double, double)>();
            for (var i = 0; i < upkeep.Count; i++)
            {
                var window = upkeep[i];
                if (window.Tag == (int)kind)
                {
                    Windows.SplitAround(stopped, window.StartMSec, window.StopMSec, windows, ignored);
                }
            }

            if (windows.Count > 0)
            {
                var name = kind == UpkeepKind.Compaction ? "store compaction running (upkeep)" : "store cache eviction running (upkeep)";
                yield return new StoreUpkeepCause(name, windows);
            }
        }
    }
}
