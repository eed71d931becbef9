using TailDb.Analyzer.Computers;

namespace TailDb.Analyzer.Attribution;

/// <summary>How many requests in scope had <paramref name="Count"/> of an activity nested in them, and how many of those were slow.</summary>
internal sealed record NestedCountBucket(int Count, long Requests, long SlowRequests);

/// <summary>
/// One nested activity counted per request (a client's Retry: retries per request): the slow set's
/// mean against the rest's, the slow set's most, and the requests by count (the seed's "retries vs
/// requests" table).
/// </summary>
internal sealed record NestedCountRow(string Activity, double SlowPerRequest, double RestPerRequest, int SlowMax, IReadOnlyList<NestedCountBucket> Table);

internal static class NestedCounts
{
    /// <summary>Every nested activity some request in scope owns, counted per request; slow is a latency at or above <paramref name="threshold"/>.</summary>
    public static List<NestedCountRow> Build(ComputerSet set, AnalysisScope scope, double threshold)
    {
        ArgumentNullException.ThrowIfNull(set);
        ArgumentNullException.ThrowIfNull(scope);
        var requests = set.Requests.Requests;
        var nested = set.Requests.Nested;
        var rows = new List<NestedCountRow>();
        var counts = new int[requests.Count];
        var activities = new SortedSet<byte>();
        for (var i = 0; i < nested.Count; i++)
        {
            ref var record = ref nested[i];
            if (record.Parent >= 0 && record.IsPaired)
            {
                activities.Add(record.Activity);
            }
        }

        foreach (var activity in activities)
        {
            Array.Clear(counts);
            for (var i = 0; i < nested.Count; i++)
            {
                ref var record = ref nested[i];
                if (record.Parent >= 0 && record.IsPaired && record.Activity == activity)
                {
                    counts[record.Parent]++;
                }
            }

            var table = new SortedDictionary<int, (long All, long Slow)>();
            long slowRequests = 0, restRequests = 0, slowTotal = 0, restTotal = 0;
            var slowMax = 0;
            for (var r = 0; r < requests.Count; r++)
            {
                ref var request = ref requests[r];
                if (!scope.Contains(request))
                {
                    continue;
                }

                var count = counts[r];
                var slow = scope.Latency(request) >= threshold;
                var (all, slowN) = table.GetValueOrDefault(count);
                table[count] = (all + 1, slowN + (slow ? 1 : 0));
                if (slow)
                {
                    slowRequests++;
                    slowTotal += count;
                    slowMax = Math.Max(slowMax, count);
                }
                else
                {
                    restRequests++;
                    restTotal += count;
                }
            }

            rows.Add(new NestedCountRow(
                set.Requests.Activities[activity].Name,
                slowRequests == 0 ? 0 : (double)slowTotal / slowRequests,
                restRequests == 0 ? 0 : (double)restTotal / restRequests,
                slowMax,
                [.. table.Select(t => new NestedCountBucket(t.Key, t.Value.All, t.Value.Slow))]));
        }

        return rows;
    }
}
