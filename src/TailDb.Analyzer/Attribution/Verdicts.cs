using System.Globalization;
using TailDb.Analyzer.Causes;

namespace TailDb.Analyzer.Attribution;

/// <summary>
/// The verdict, built from the cause rows (never from report text): the largest cause of the slow
/// set's time that is not the measurement's own cost and is over-represented in the tail, with
/// that cost beside it. When the slow threshold is shorter than the sampling interval a sample
/// inside one request is a statistical hit, so the verdict then rests on event-based causes alone
/// and says so.
/// </summary>
internal static class Verdicts
{
    public static VerdictSection Build(IReadOnlyList<CauseRow> rows, LatencyBasis basis, double slowTime, bool eventBasedOnly, bool schedulerRecorded = false)
    {
        ArgumentNullException.ThrowIfNull(rows);
        CauseRow? top = null;
        // A cause the rest of the requests have more of than the slow set is not what makes the tail
        // (a load thread's sleep between requests, 0.8x): the largest of the over-represented leads, and
        // an under-represented one only when no cause is over-represented.
        CauseRow? largestUnder = null;
        CauseRow? queuedBehind = null;
        var overheadMs = 0.0;
        var cpuWaitMs = 0.0;
        var lateWakeMs = 0.0;
        foreach (var row in rows)
        {
            if (row.Unit != CauseUnit.Milliseconds)
            {
                continue;
            }

            if (row.Kind is CauseKind.CpuWait or CauseKind.CpuWaitInFault)
            {
                cpuWaitMs += row.SlowTotal;
            }

            if (row.Measurement)
            {
                overheadMs += row.SlowTotal;
            }
            else if (row.Kind == CauseKind.LateWake)
            {
                // Says whose the time was (the pacing's), not what the requests did: the lead, never the top cause.
                lateWakeMs += row.SlowTotal;
            }
            else if (row.Kind == CauseKind.EarlierRequests)
            {
                // Waiting behind the request in front says where the time went, not why: the pause or
                // lock that held that request up overlaps this one's queue too, and is the answer.
                queuedBehind = row;
            }
            else if ((!eventBasedOnly || row.EventBased) && row.SlowShare > 0)
            {
                if (row.Lift is { } lift && lift < 1)
                {
                    largestUnder = largestUnder is null || row.SlowShare > largestUnder.SlowShare ? row : largestUnder;
                }
                else if (top is null || row.SlowShare > top.SlowShare)
                {
                    top = row;
                }
            }
        }

        top ??= largestUnder ?? queuedBehind;

        var overhead = slowTime > 0 ? Math.Round(Math.Min(1, overheadMs / slowTime), 4) : 0;
        var cpuWait = slowTime > 0 ? Math.Round(Math.Min(1, cpuWaitMs / slowTime), 4) : 0;
        var lateWake = slowTime > 0 ? Math.Round(Math.Min(1, lateWakeMs / slowTime), 4) : 0;
        var behind = queuedBehind is not null && queuedBehind != top ? queuedBehind.SlowShare : 0;
        if (top is null || top.SlowShare == 0)
        {
            return new VerdictSection(null, null, 0, 0, null, 0, overhead, eventBasedOnly, basis, cpuWait, behind, lateWake, schedulerRecorded);
        }

        var queueShare = slowTime > 0 ? Math.Round(Math.Min(top.SlowShare, top.SlowQueueTotal / slowTime), 4) : 0;
        return new VerdictSection(top.Cause, top.Kind, top.SlowShare, top.RestShare, top.Lift, queueShare, overhead, eventBasedOnly, basis, cpuWait, behind, lateWake, schedulerRecorded);
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
            ? $" {Pct(verdict.QueueShare)} of the slow set's time in it fell while the requests were queued before service."
            : "";
        var cause = verdict.Kind == CauseKind.Samples ? $"{verdict.Cause}, by CPU samples on the request's thread" : verdict.Cause;
        var main = verdict.SlowShare < 0.1
            ? $"No single recorded cause explains {who} {latency}: the largest, {cause}, covers only {Pct(verdict.SlowShare)}{rest}."
            : $"{Pct(verdict.SlowShare)} of {who} {latency} was spent in {cause}{rest}.{where}";
        if (verdict.QueuedBehindShare >= 0.25 && verdict.SlowShare < verdict.QueuedBehindShare)
        {
            // Queueing says where the time went, not why: lead with it, and with what held the requests in front, if anything did.
            main = $"{Pct(verdict.QueuedBehindShare)} of {who} {latency} was queueing behind earlier requests on the same thread; " +
                (verdict.SlowShare >= 0.1
                    ? $"the largest recorded cause of what held them is {cause}, {Pct(verdict.SlowShare)}{rest}."
                    : $"no recorded cause explains what held those earlier requests (the largest, {cause}, covers {Pct(verdict.SlowShare)}): " +
                      (verdict.SchedulerRecorded
                          // The scheduler was recorded: time without a CPU is known (its rows, split by holder), so what is left was service.
                          ? $"their threads waited for a CPU for {Pct(verdict.CpuWaitShare)} of the slow set's time in all (the rows by holder), and otherwise their own service was slow."
                          : "their own service was slow, or the thread had no CPU and nothing recorded the scheduler (record with --sampler perf)."));
        }

        return Lead(verdict) + main + basis + overhead;
    }

    /// <summary>
    /// What must come first: a tail the machine made (the requests' threads waited for a CPU), one the
    /// load generator made (its pacing wait woke after the requests were due), or one the measurement
    /// made (over a quarter of the slow set's time was the sampler's or tracing's cost).
    /// </summary>
    private static string Lead(VerdictSection verdict) => MadeBy(verdict) switch
    {
        TailMaker.LoadGenerator =>
            $"The load generator made this tail: the requests came due while their threads were still asleep between requests for {Pct(verdict.LateWakeShare)} of the slow set's time (the wait that paces them woke late; " +
            "on a virtual machine the host may have taken the CPU). Use a quieter machine or dedicated cores; the causes below are what the requests themselves met. ",
        TailMaker.Machine =>
            $"The machine made this tail: the requests' threads were runnable but had no CPU for {Pct(verdict.CpuWaitShare)} of the slow set's time. " +
            "Use fewer load threads than cores, a quieter machine, or pin the load away from other work with taskset. ",
        TailMaker.Measurement =>
            $"The measurement made much of this tail: {Pct(verdict.MeasurementOverheadShare)} of the slow set's time was the recording's own cost (the sampler, tracing code, the recording's threads on a CPU). " +
            "Record again with the other sampler (--sampler perf samples in the kernel) or --sampler off. ",
        _ => "",
    };

    /// <summary>Who made the tail, when it was not the app: the one rule the verdict's lead follows (and a check of the verdict can ask).</summary>
    internal static TailMaker MadeBy(VerdictSection verdict)
    {
        // Each only when as large as the top cause: a GC pause that a thread also waited out runnable is still the GC's tail.
        // The thread-time line of those sleeps (off CPU, asleep) holds the late wake itself, so it is no rival to it.
        var rivalToLateWake = verdict.Kind == CauseKind.OffCpu ? 0 : verdict.SlowShare;
        if (verdict.LateWakeShare >= 0.25 && verdict.LateWakeShare >= rivalToLateWake && verdict.LateWakeShare > verdict.CpuWaitShare)
        {
            return TailMaker.LoadGenerator;
        }

        if (verdict.CpuWaitShare >= 0.25 && verdict.CpuWaitShare >= verdict.SlowShare)
        {
            return TailMaker.Machine;
        }

        return verdict.MeasurementOverheadShare >= 0.25 ? TailMaker.Measurement : TailMaker.App;
    }

    private static string Pct(double share) => (share * 100).ToString(share < 0.1 ? "0.#" : "0", CultureInfo.InvariantCulture) + "%";

    private static string Ms(double ms) => ms.ToString("0.###", CultureInfo.InvariantCulture) + " ms";
}

/// <summary>Who made a slow set's tail: the app (its own causes), or something the verdict must name first.</summary>
internal enum TailMaker
{
    App,

    /// <summary>The open loop's pacing wait woke after the requests were due (late wakes).</summary>
    LoadGenerator,

    /// <summary>The requests' threads were runnable with no CPU.</summary>
    Machine,

    /// <summary>The recording's own cost (the sampler, tracing code, its threads).</summary>
    Measurement,
}
