using TailDb.Analyzer.Computers;
using TailDb.Analyzer.Intervals;

namespace TailDb.Analyzer.Causes;

/// <summary>What causes are made from: the trace's computers, its samples, and the views of them several causes share.</summary>
internal sealed class CauseInputs(ComputerSet set, SampleComputer? samples)
{
    private (double Start, double Stop)[]? _gcPauses;
    private (double Start, double Stop)[]? _stopped;

    public ComputerSet Set { get; } = set ?? throw new ArgumentNullException(nameof(set));

    public SampleComputer? Samples { get; } = samples;

    /// <summary>The sample causes' one pass over a window's samples; null without samples or a measured interval.</summary>
    public SampleClassifier? Classifier { get; } = SampleClassifier.For(set, samples);

    /// <summary>Every GC pause, sorted.</summary>
    public (double Start, double Stop)[] GcPauses => _gcPauses ??= [.. Set.Gc.Pauses.Select(p => (p.StartMSec, p.StopMSec)).Order()];

    /// <summary>Every GC pause and runtime suspension, merged into disjoint windows sorted by start.</summary>
    public (double Start, double Stop)[] StoppedWindows => _stopped ??= Stopped();

    private (double Start, double Stop)[] Stopped()
    {
        var all = new List<(double Start, double Stop)>();
        foreach (var pause in Set.Gc.Pauses)
        {
            all.Add((pause.StartMSec, pause.StopMSec));
        }

        for (var i = 0; i < Set.Suspensions.Windows.Count; i++)
        {
            all.Add((Set.Suspensions.Windows[i].StartMSec, Set.Suspensions.Windows[i].StopMSec));
        }

        return Windows.Merge(all);
    }
}
