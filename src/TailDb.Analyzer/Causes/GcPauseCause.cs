namespace TailDb.Analyzer.Causes;

/// <summary>The GC's stop-the-world pauses of one generation: every thread stopped.</summary>
internal sealed class GcPauseCause(string name, List<(double Start, double Stop)> windows) : ProcessWindowsCause(name, windows)
{
    public override CauseKind Kind => CauseKind.GcPause;

    public override CauseGroup Group => CauseGroup.GcPauses;

    public static IEnumerable<ICause> From(CauseInputs inputs)
    {
        ArgumentNullException.ThrowIfNull(inputs);
        for (var generation = -1; generation <= 2; generation++)
        {
            var windows = new List<(double, double)>();
            foreach (var pause in inputs.Set.Gc.Pauses)
            {
                if (pause.Generation == generation)
                {
                    windows.Add((pause.StartMSec, pause.StopMSec));
                }
            }

            if (windows.Count > 0)
            {
                yield return new GcPauseCause(generation < 0 ? "GC pauses (generation unknown)" : $"gen{generation} GC pauses", windows);
            }
        }
    }
}
