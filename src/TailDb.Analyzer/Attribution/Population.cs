using TailDb.Analyzer.Computers;
using TailDb.Analyzer.Traces;
using TailDb.Cli;

using TailDb.Tracing;

namespace TailDb.Analyzer.Attribution;

/// <summary>Exact request latencies per activity, for the requests in scope, and the figures every report starts with.</summary>
internal sealed class Population
{
    public Population(ComputerSet set, AnalysisScope scope)
    {
        ArgumentNullException.ThrowIfNull(set);
        ArgumentNullException.ThrowIfNull(scope);
        Scope = scope;
        var requests = set.Requests;
        var counts = new int[requests.Activities.Count];
        for (var i = 0; i < requests.Requests.Count; i++)
        {
            ref var record = ref requests.Requests[i];
            if (scope.Contains(record))
            {
                counts[record.Activity]++;
                Paired++;
            }
        }

        // Floats: 4 bytes a request, twice, for ten million requests; 7 significant digits is plenty.
        Durations = new float[requests.Activities.Count][];
        for (var a = 0; a < counts.Length; a++)
        {
            Durations[a] = new float[counts[a]];
        }

        var filled = new int[counts.Length];
        for (var i = 0; i < requests.Requests.Count; i++)
        {
            ref var record = ref requests.Requests[i];
            if (scope.Contains(record))
            {
                Durations[record.Activity][filled[record.Activity]++] = (float)scope.Latency(record);
            }
        }

        foreach (var durations in Durations)
        {
            Array.Sort(durations);
        }

        var stats = new List<ActivityStats>();
        var nested = new List<NestedStats>();
        for (var a = 0; a < counts.Length; a++)
        {
            var info = requests.Activities[a];
            if (info.IsRequest)
            {
                var d = Durations[a];
                stats.Add(new ActivityStats(info.Name, d.Length, Round(Percentiles.At(d, 50)), Round(Percentiles.At(d, 90)),
                    Round(Percentiles.At(d, 99)), Round(Percentiles.At(d, 99.9)), Round(d.Length > 0 ? d[^1] : double.NaN),
                    info.UnpairedStarts, info.UnpairedStops));
            }
            else
            {
                nested.Add(new NestedStats(info.Name, info.Completed, info.WithParent, info.UnpairedStarts, info.UnpairedStops));
            }
        }

        Activities = stats;
        Nested = nested;
    }

    public AnalysisScope Scope { get; }

    /// <summary>Completed requests in scope.</summary>
    public long Paired { get; }

    /// <summary>Per activity index, ascending.</summary>
    public float[][] Durations { get; }

    /// <summary>
    /// The k-th longest duration over every request activity: walks down from the top of each sorted
    /// per-activity array (k is 1% of the requests), so no second array of every duration is needed.
    /// </summary>
    public double KthLongest(long k)
    {
        var next = new int[Durations.Length];
        for (var a = 0; a < next.Length; a++)
        {
            next[a] = Durations[a].Length - 1;
        }

        var value = double.NaN;
        for (long taken = 0; taken < k; taken++)
        {
            var best = -1;
            for (var a = 0; a < next.Length; a++)
            {
                if (next[a] >= 0 && (best < 0 || Durations[a][next[a]] > Durations[best][next[best]]))
                {
                    best = a;
                }
            }

            if (best < 0)
            {
                break;
            }

            value = Durations[best][next[best]--];
        }

        return value;
    }

    public IReadOnlyList<ActivityStats> Activities { get; }

    public IReadOnlyList<NestedStats> Nested { get; }

    public static TraceSection TraceSection(ComputerSet set, SampleComputer? samples, string stacks)
    {
        ArgumentNullException.ThrowIfNull(set);
        var facts = set.Facts;
        var pairing = set.Requests.Pairing switch
        {
            PairingMode.ActivityId => "ActivityID",
            PairingMode.Thread => "thread (the Start/Stop events carry no ActivityID: their source sets none and TplEventSource keyword 0x80 was off; async requests that hop threads need one or the other)",
            PairingMode.Mixed => $"ActivityID, and thread for {Counted.Of(set.Requests.PairedByThread, "request")} whose ActivityIDs were empty",
            _ => "none",
        };
        double? interval = samples is not null && double.IsFinite(samples.IntervalMSec) ? Round(samples.IntervalMSec) : null;
        return new TraceSection(facts.Path, facts.Bytes, Round(facts.DurationMSec), facts.EventCount, facts.EventsLost, facts.Truncation,
            pairing, interval, samples?.TotalSamples ?? 0, stacks);
    }

    public static double Round(double value) => double.IsFinite(value) ? Math.Round(value, 3) : 0;

    public static string DescribeActivities(ComputerSet set)
    {
        ArgumentNullException.ThrowIfNull(set);
        var names = new List<string>();
        foreach (var activity in set.Requests.Activities)
        {
            names.Add(activity.Name);
        }

        return names.Count == 0 ? "none" : string.Join(", ", names);
    }

    /// <summary>For a machine-wide trace: " (the trace's Start/Stop activities: ...)", or "" when not taken.</summary>
    public static string DescribeTraceActivities(TraceFacts facts)
    {
        ArgumentNullException.ThrowIfNull(facts);
        if (facts.StartStopActivities is not { } all)
        {
            return "";
        }

        return all.Count == 0
            ? "; the trace holds no Start/Stop activity of any provider"
            : $"; the trace's Start/Stop activities (any process): {string.Join(", ", all.Take(12))}{(all.Count > 12 ? $", and {all.Count - 12} more" : "")}";
    }

    /// <summary>
    /// What a trace of a load test's or server's requests without the store's events (recorded at
    /// --trace-level requests) cannot name; null when the store's events are there or the requests are the store's.
    /// </summary>
    public static string? StoreEventsMissing(ComputerSet set)
    {
        ArgumentNullException.ThrowIfNull(set);
        var provider = set.Requests.Selection.Provider;
        if (set.StoreEvents.Recorded || set.Requests.Requests.Count == 0 || string.Equals(provider, TailDbEventContract.ProviderName, StringComparison.OrdinalIgnoreCase))
        {
            return null;
        }

        return "No store events in this trace (recorded at --trace-level requests): the store's Get/Put/Delete and the FileRead and Fsync inside them are not in it, " +
            "so time inside the store is not split into its file reads and fsyncs and --provider TailDb finds no requests; CPU samples (and perf's disk and sleep lines) " +
            "still show where it went. Record with --trace-level store to name them (docs/sampling.md, \"Trace levels\").";
    }

    public static List<string> CommonNotes(TraceFacts facts, ComputerSet set)
    {
        ArgumentNullException.ThrowIfNull(facts);
        ArgumentNullException.ThrowIfNull(set);
        var notes = new List<string>();
        if (facts.Process is not null)
        {
            notes.Add($"Analyzed {facts.Process}.");
        }

        if (facts.NotRead is not null)
        {
            notes.Add($"{facts.NotRead} (docs/etl.md).");
        }

        if (facts.EventsLost > 0)
        {
            notes.Add($"{Counted.Of(facts.EventsLost, "event")} {Counted.Were(facts.EventsLost)} lost (EventPipe buffers filled): counts and windows may be incomplete.");
        }

        if (facts.Truncation is not null)
        {
            notes.Add($"The trace is truncated ({facts.Truncation}); the report covers what was read.");
        }

        if (set.Requests.SkippedFields.Count > 0)
        {
            notes.Add($"Payload fields not kept (floats, GUIDs, times, arrays, or past the record's room): {string.Join(", ", set.Requests.SkippedFields)}.");
        }

        notes.AddRange(set.Requests.PayloadMismatches());

        if (StoreEventsMissing(set) is { } missing)
        {
            notes.Add(missing);
        }

        if (set.Gc.GcsByGeneration[0] + set.Gc.GcsByGeneration[1] + set.Gc.GcsByGeneration[2] == 0 && set.Suspensions.Windows.Count == 0)
        {
            notes.Add("No GC or suspension events: record with the runtime's GC keyword (0x1) to see pauses.");
        }

        return notes;
    }
}
