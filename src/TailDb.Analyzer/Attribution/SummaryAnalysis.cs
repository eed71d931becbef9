using TailDb.Analyzer.Computers;
using TailDb.Analyzer.Sources;
using TailDb.Analyzer.Stacks;

namespace TailDb.Analyzer.Attribution;

/// <summary>`summary`: percentiles per activity, GC statistics and losses, from the streaming pass alone.</summary>
internal static class SummaryAnalysis
{
    public static SummaryReport Run(string tracePath, RequestSelection selection, ScopeSettings? scopeSettings = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(selection);
        var kind = Traces.TraceFile.Check(tracePath);
        selection = RequestSources.Resolve(tracePath, selection, kind);
        var set = ComputerSet.Run(tracePath, selection, cancellationToken: cancellationToken);
        var scope = AnalysisScope.Resolve(scopeSettings ?? ScopeSettings.Default, set);
        var population = new Population(set, scope);
        var pauses = new double[set.Gc.Pauses.Count];
        var paused = 0.0;
        for (var i = 0; i < pauses.Length; i++)
        {
            pauses[i] = set.Gc.Pauses[i].DurationMSec;
            paused += pauses[i];
        }

        Array.Sort(pauses);
        var suspended = 0.0;
        for (var i = 0; i < set.Suspensions.Windows.Count; i++)
        {
            suspended += set.Suspensions.Windows[i].DurationMSec;
        }

        var duration = set.Facts.DurationMSec;
        var gc = new GcStats([.. set.Gc.GcsByGeneration], pauses.Length,
            Population.Round(Percentiles.At(pauses, 50)), Population.Round(Percentiles.At(pauses, 99)),
            Population.Round(pauses.Length > 0 ? pauses[^1] : 0), Population.Round(paused),
            duration > 0 ? Math.Round(paused / duration, 4) : 0,
            set.Suspensions.Windows.Count, Population.Round(suspended), duration > 0 ? Math.Round(suspended / duration, 4) : 0);
        var notes = Population.CommonNotes(set.Facts, set);
        notes.Insert(0, $"Requests: {scope.RangeDescription}; latency: {scope.BasisDescription}.");
        if (population.Paired == 0)
        {
            notes.Add($"No completed {selection.Provider} requests ({string.Join("/", selection.Activities)}); activities seen: {Population.DescribeActivities(set)}{Population.DescribeTraceActivities(set.Facts)}.");
        }

        // An ETW trace's CPU samples are kernel events of the whole machine: the chosen process's are counted here.
        SampleComputer? samples = null;
        var stacks = "not read by summary";
        if (kind == Traces.TraceKind.Etl)
        {
            var kernel = new EtwStackSampleReader(set.Facts.ProcessId).Read(tracePath, cancellationToken);
            samples = kernel.Samples.Count > 0 ? new SampleComputer(kernel) : null;
            stacks = $"{TailDb.Cli.Counted.Of(kernel.Samples.Count, "kernel CPU sample")} of the process ({TailDb.Cli.Counted.Of(kernel.Stacks.Count, "distinct stack")}, "
                + $"{kernel.UnresolvedFrames:N0} unresolved address{(kernel.UnresolvedFrames == 1 ? "" : "es")}: in no method range or image)";
        }

        return new SummaryReport("summary", SlowestReport.CurrentSchemaVersion, Population.TraceSection(set, samples, stacks),
            population.Activities, population.Nested, gc, notes);
    }
}
