using System.Globalization;
using TailDb.Analyzer.Causes;

namespace TailDb.Analyzer.Attribution;

/// <summary>
/// The verdict, built from the cause rows (never from report text): the largest cause of the slow
/// set's time that is not the measurement's own cost, with that cost beside it. When the slow
/// threshold is shorter than the sampling interval a sample inside one request is a statistical
/// hit, so the verdict then rests on event-based causes alone and says so.
/// </summary>
internal static class Verdicts
{
    public static VerdictSection Build(IReadOnlyList<CauseRow> rows, LatencyBasis basis, double slowTime, bool eventBasedOnly)
    {
        ArgumentNullException.ThrowIfNull(rows);
        CauseRow? top = null;
        CauseRow? queuedBehind = null;
        var overheadMs = 0.0;
        foreach (var row in rows)
        {
            if (row.Unit != CauseUnit.Milliseconds)
            {
                continue;
            }

            if (row.Measurement)
            {
                overheadMs += row.SlowTotal;
            }
            else if (row.Kind == CauseKind.EarlierRequests)
            {
                // Waiting behind the request in front says where the time went, not why: the pause or
                // lock that held that request up overlaps this one's queue too, and is the answer.
                queuedBehind = row;
            }
            else if ((!eventBasedOnly || row.EventBased) && row.SlowShare > 0 && (top is null || row.SlowShare > top.SlowShare))
            {
                top = row;
            }
        }

        top ??= queuedBehind;

        var overhead = slowTime > 0 ? Math.Round(Math.Min(1, overheadMs / slowTime), 4) : 0;
        if (top is null || top.SlowShare == 0)
        {
            return new VerdictSection(null, null, 0, 0, null, 0, overhead, eventBasedOnly, basis);
        }

        var queueShare = slowTime > 0 ? Math.Round(Math.Min(top.SlowShare, top.SlowQueueTotal / slowTime), 4) : 0;
        return new VerdictSection(top.Cause, top.Kind, top.SlowShare, top.RestShare, top.Lift, queueShare, overhead, eventBasedOnly, basis);
    }

    public static string Sentence(VerdictSection verdict, string selection, long slowCount, double threshold, double? samplingIntervalMs)
    {
        ArgumentNullException.ThrowIfNull(verdict);
        if (slowCount == 0)
        {
            return $"No request is in the slow set ({selection}).";
        }

        var who = selection.StartsWith("slowest", StringComparison.Ordinal) ? $"the {selection}'s" : $"the {slowCount:N0} {selection}'s";
        var latency = verdict.Basis == LatencyBasis.Response ? "response time" : "time";
        var basis = verdict.EventBasedOnly
            ? $" Event-based causes only: the slow threshold ({Ms(threshold)}) is shorter than the sampling interval ({Ms(samplingIntervalMs ?? 0)}), so CPU samples cannot be trusted for single requests."
            : "";
        var overhead = $" Measurement overhead: {Pct(verdict.MeasurementOverheadShare)} of the slow set's time.";
        if (verdict.Cause is null || verdict.Kind is null)
        {
            return $"No recorded cause (GC, suspension, contention, JIT, nested activity, queueing, samples) overlaps {who} {latency}.{basis}{overhead}";
        }

        var rest = verdict.Lift is not null
            ? $" (the rest of the requests: {Pct(verdict.RestShare)}; {CauseRow.Spell(verdict.Lift)} over-represented in the tail)"
            : " (and none of the rest's)";
        var where = verdict.Basis == LatencyBasis.Response && verdict.SlowShare > 0
            ? $", {Pct(verdict.QueueShare)} of it while queued before service"
            : "";
        var cause = verdict.Kind == CauseKind.Samples ? $"{verdict.Cause}, by CPU samples on the request's thread" : verdict.Cause;
        var main = verdict.SlowShare < 0.1
            ? $"No single recorded cause explains {who} {latency}: the largest, {cause}, covers only {Pct(verdict.SlowShare)}{rest}."
            : $"{Pct(verdict.SlowShare)} of {who} {latency} was spent in {cause}{where}{rest}.";
        return main + basis + overhead;
    }

    private static string Pct(double share) => (share * 100).ToString(share < 0.1 ? "0.#" : "0", CultureInfo.InvariantCulture) + "%";

    private static string Ms(double ms) => ms.ToString("0.###", CultureInfo.InvariantCulture) + " ms";
}
