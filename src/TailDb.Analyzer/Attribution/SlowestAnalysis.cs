using System.Globalization;
using TailDb.Analyzer.Computers;
using TailDb.Analyzer.Reports;
using TailDb.Analyzer.Stacks;
using TailDb.Analyzer.Traces;

namespace TailDb.Analyzer.Attribution;

/// <param name="ThresholdMs">When set, the slow set is every request at least this long; otherwise the slowest <paramref name="Percent"/>.</param>
internal sealed record SlowestSettings(string TracePath, RequestSelection Selection, double Percent = 1, double? ThresholdMs = null, int Top = 10);

/// <summary>
/// The `slowest` pipeline: one streaming pass (requests, GC, suspensions, contention, JIT, ...),
/// then the samples' stacks, then every request window measured against every cause; the slow
/// set against the rest gives each cause's share and lift.
/// </summary>
internal static class SlowestAnalysis
{
    private const int ProfileRows = 12;

    public static SlowestReport Run(SlowestSettings settings, IStackSampleReader? stackReader, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(settings);

        // Stacks first: the streaming reader checks every event's framing and refuses a corrupt file in
        // a moment, where TraceEvent can spend seconds allocating gigabytes for a corrupt metadata
        // field count before it fails (found by the byte-mutation tests).
        var kind = TraceFile.Check(settings.TracePath);
        var (samples, stacks) = ReadSamples(settings.TracePath, stackReader, kind, cancellationToken);
        // A trace the stack reader read to its end has had its framing checked (truncated ones keep the walk:
        // it is what names the truncation).
        var set = ComputerSet.Run(settings.TracePath, settings.Selection, framingChecked: samples is not null, cancellationToken);
        var population = new Population(set);
        if (population.Paired == 0)
        {
            throw new AnalyzerException(ExitCode.NoRequests,
                $"{settings.TracePath}: no completed {settings.Selection.Provider} requests ({string.Join("/", settings.Selection.Activities)}) " +
                $"in the trace; activities seen for that provider: {Population.DescribeActivities(set)} (choose others with --provider/--activity)");
        }

        var attributor = new Attributor(set, samples);
        var causes = attributor.Causes;

        double threshold;
        string selection;
        if (settings.ThresholdMs is { } ms)
        {
            threshold = ms;
            selection = $"requests of at least {ms.ToString("0.###", CultureInfo.InvariantCulture)} ms";
        }
        else
        {
            var k = (long)Math.Clamp(Math.Ceiling(population.Paired * settings.Percent / 100.0), 1, population.Paired);
            threshold = population.KthLongest(k);
            selection = $"slowest {settings.Percent.ToString("0.###", CultureInfo.InvariantCulture)}%";
        }

        var slowTotals = new double[causes.Count];
        var restTotals = new double[causes.Count];
        var values = new double[causes.Count];
        double slowTime = 0, restTime = 0;
        long slowCount = 0, restCount = 0;
        var slowIndices = new List<int>();
        var payload = new PayloadCorrelation(set.Requests.Activities);
        var requests = set.Requests.Requests;
        for (var i = 0; i < requests.Count; i++)
        {
            ref var request = ref requests[i];
            if (!request.IsPaired)
            {
                continue;
            }

            var slow = request.DurationMSec >= threshold;
            attributor.Measure(request, i, values);
            var totals = slow ? slowTotals : restTotals;
            for (var c = 0; c < values.Length; c++)
            {
                totals[c] += values[c];
            }

            if (slow)
            {
                slowTime += request.DurationMSec;
                slowCount++;
                slowIndices.Add(i);
            }
            else
            {
                restTime += request.DurationMSec;
                restCount++;
            }

            payload.Add(request, slow);
        }

        var causeRows = CauseRows(causes, slowTotals, restTotals, slowTime, restTime, slowCount, restCount);
        slowIndices.Sort((a, b) => requests[b].DurationMSec.CompareTo(requests[a].DurationMSec));
        var slowest = new List<SlowRequestRow>();
        for (var r = 0; r < slowIndices.Count && r < settings.Top; r++)
        {
            slowest.Add(SlowRow(r + 1, slowIndices[r], set, attributor, samples, values));
        }

        var profile = Profile(set, samples, attributor, slowIndices, slowTime);
        var verdict = Verdict(causeRows, selection, slowCount);
        var notes = Population.CommonNotes(set.Facts, set);
        var (pauses, pausedMs, overlappedMs) = GcOutsideRequests(set, causes, slowTotals, restTotals);
        if (pauses > 0 && overlappedMs < pausedMs * 0.5)
        {
            notes.Add($"GC paused the process {pauses:N0} times for {pausedMs.ToString("0.#", CultureInfo.InvariantCulture)} ms; request windows overlapped " +
                $"{overlappedMs.ToString("0.#", CultureInfo.InvariantCulture)} ms of it. A pause that falls between requests delays the requests queued behind it " +
                "(open-loop load), which their Start/Stop windows do not include: compare the load test's coordinated-omission-corrected percentiles.");
        }

        if (samples is null)
        {
            notes.Add($"No CPU samples attributed: {stacks}.");
        }
        else
        {
            notes.Add("The sample profiler takes no samples while a GC runs: GC time comes from the GC events (pause windows), not from samples.");
            if (threshold < samples.IntervalMSec)
            {
                notes.Add($"The slow threshold ({threshold.ToString("0.###", CultureInfo.InvariantCulture)} ms) is shorter than the sampling interval " +
                    $"({samples.IntervalMSec.ToString("0.###", CultureInfo.InvariantCulture)} ms): a sample inside such a short request is a statistical hit, and the " +
                    "sampler's own suspension makes the requests it hits slower, so sample-based causes are over-represented in this slow set; " +
                    "weigh the event-based causes (GC, suspension, contention, nested I/O), or look at a smaller --percent.");
            }
        }

        return new SlowestReport("slowest", SlowestReport.CurrentSchemaVersion,
            Population.TraceSection(set, samples, stacks),
            new PopulationSection(settings.Selection.Provider, population.Activities, population.Nested, population.Paired, selection, slowCount, Population.Round(threshold)),
            causeRows, profile, slowest, verdict, payload.Rows(), notes);
    }

    /// <summary>Total GC pause time against the pause time request windows saw (summed over requests).</summary>
    private static (int Pauses, double PausedMs, double OverlappedMs) GcOutsideRequests(
        ComputerSet set, IReadOnlyList<CauseDefinition> causes, double[] slowTotals, double[] restTotals)
    {
        var paused = 0.0;
        foreach (var pause in set.Gc.Pauses)
        {
            paused += pause.DurationMSec;
        }

        var overlapped = 0.0;
        for (var c = 0; c < causes.Count; c++)
        {
            if (causes[c].IsGc)
            {
                overlapped += slowTotals[c] + restTotals[c];
            }
        }

        return (set.Gc.Pauses.Count, paused, overlapped);
    }

    private static (SampleComputer? Samples, string Status) ReadSamples(string path, IStackSampleReader? reader, TraceKind kind, CancellationToken cancellationToken)
    {
        if (reader is null)
        {
            return (null, "not read (--no-stacks, or no stack reader in this build)");
        }

        if (kind != TraceKind.NetTrace)
        {
            return (null, "not read (stacks are read from .nettrace files only)");
        }

        try
        {
            var set = reader.Read(path, cancellationToken);
            if (set.Samples.Count == 0)
            {
                return (null, "no sample profiler events in the trace (record with Microsoft-DotNETCore-SampleProfiler)");
            }

            var status = $"{set.Samples.Count:N0} samples read by {reader.GetType().Name}";
            if (set.UnresolvedFrames > 0)
            {
                status += $"; {set.UnresolvedFrames:N0} frames unresolved (no method range: no rundown, or native code)";
            }

            return (new SampleComputer(set), status);
        }
        catch (TraceFormatException e) when (!e.Message.Contains("truncated", StringComparison.Ordinal)
            && !e.Message.Contains("newer than", StringComparison.Ordinal))
        {
            var message = e.Message.ReplaceLineEndings(" ");
            var detail = message.StartsWith(path, StringComparison.Ordinal) ? message[path.Length..].TrimStart(':', ' ') : message;
            throw new AnalyzerException(ExitCode.BadTrace, $"{path} is not a readable trace: {detail}", e);
        }
        catch (Exception e) when (e is TraceFormatException || TracePass.IsParserFailure(e))
        {
            // Cut short, or a format the stack reader does not know: report everything else rather than nothing.
            return (null, $"unreadable ({TracePass.OneLine(e)})");
        }
    }

    private static List<CauseRow> CauseRows(
        IReadOnlyList<CauseDefinition> causes, double[] slowTotals, double[] restTotals, double slowTime, double restTime, long slowCount, long restCount)
    {
        var rows = new List<CauseRow>();
        for (var c = 0; c < causes.Count; c++)
        {
            if (slowTotals[c] == 0 && restTotals[c] == 0)
            {
                continue;
            }

            var cause = causes[c];
            double slowShare, restShare;
            if (cause.Unit == CauseUnit.Milliseconds)
            {
                slowShare = slowTime > 0 ? Math.Min(1, slowTotals[c] / slowTime) : 0;
                restShare = restTime > 0 ? Math.Min(1, restTotals[c] / restTime) : 0;
            }
            else
            {
                slowShare = slowCount > 0 ? slowTotals[c] / slowCount : 0;
                restShare = restCount > 0 ? restTotals[c] / restCount : 0;
            }

            double? lift = restShare > 0 ? Math.Round(slowShare / restShare, 2) : null;
            rows.Add(new CauseRow(cause.Name, cause.Scope, cause.Unit == CauseUnit.Milliseconds ? "ms" : "events",
                Math.Round(slowShare, 4), Math.Round(restShare, 4), lift, Population.Round(slowTotals[c]), Population.Round(restTotals[c])));
        }

        // Time causes first, by their share of the slow set's time; ties by name keep the order stable.
        rows.Sort((a, b) =>
        {
            var unit = string.CompareOrdinal(b.Unit, a.Unit);
            if (unit != 0)
            {
                return unit;
            }

            var share = b.SlowShare.CompareTo(a.SlowShare);
            return share != 0 ? share : string.CompareOrdinal(a.Cause, b.Cause);
        });
        return rows;
    }

    private static SlowRequestRow SlowRow(int rank, int index, ComputerSet set, Attributor attributor, SampleComputer? samples, double[] values)
    {
        ref var request = ref set.Requests.Requests[index];
        var activity = set.Requests.Activities[request.Activity];
        var fields = new Dictionary<string, long>(StringComparer.Ordinal);
        for (var f = 0; f < activity.FieldNames.Count; f++)
        {
            if (activity.TryGet(request, f, out var value))
            {
                fields[activity.FieldNames[f]] = value;
            }
        }

        attributor.Measure(request, index, values);
        var overlaps = new List<CauseOverlap>();
        for (var c = 0; c < values.Length; c++)
        {
            if (values[c] > 0)
            {
                var cause = attributor.Causes[c];
                overlaps.Add(new CauseOverlap(cause.Name, cause.Unit == CauseUnit.Milliseconds ? "ms" : "events", Population.Round(values[c])));
            }
        }

        overlaps.Sort((a, b) => b.Value.CompareTo(a.Value));
        var frames = new Dictionary<int, int>();
        if (samples is not null && samples.TryGetThread(request.ThreadId, out var thread))
        {
            var (first, end) = thread.Range(request.StartMSec, request.StopMSec);
            for (var i = first; i < end; i++)
            {
                frames[thread.StackIds[i]] = frames.GetValueOrDefault(thread.StackIds[i]) + 1;
            }
        }

        var top = TopFrames(frames, samples, request.DurationMSec, 3);
        return new SlowRequestRow(rank, activity.Name, Population.Round(request.StartMSec), Population.Round(request.DurationMSec), request.ThreadId,
            fields, overlaps, top);
    }

    /// <summary>Leaf frames by sample count; stacks that share a leaf are merged.</summary>
    private static List<FrameRow> TopFrames(Dictionary<int, int> countsByStack, SampleComputer? samples, double totalMs, int rows)
    {
        var byLeaf = new Dictionary<string, (double Ms, SampleCategory Category)>(StringComparer.Ordinal);
        if (samples is not null)
        {
            foreach (var (stack, count) in countsByStack)
            {
                var leaf = samples.LeafFrames[stack];
                var ms = count * samples.IntervalMSec;
                byLeaf[leaf] = (byLeaf.GetValueOrDefault(leaf).Ms + ms, samples.Categories[stack]);
            }
        }

        var list = new List<FrameRow>();
        foreach (var (leaf, (ms, category)) in byLeaf)
        {
            list.Add(new FrameRow(leaf, SampleComputer.CategoryName(category), Population.Round(ms), totalMs > 0 ? Math.Round(ms / totalMs, 4) : 0));
        }

        list.Sort((a, b) => b.Ms != a.Ms ? b.Ms.CompareTo(a.Ms) : string.CompareOrdinal(a.Frame, b.Frame));
        return list.Count > rows ? list[..rows] : list;
    }

    /// <summary>
    /// The whole run as a sampling profiler sees it (every sample; GC pauses are invisible there) beside
    /// the slow windows, where process-wide pauses appear as bracketed pseudo-frames with their time.
    /// </summary>
    private static ProfileSection Profile(ComputerSet set, SampleComputer? samples, Attributor attributor, List<int> slowIndices, double slowTime)
    {
        var wholeRun = new List<FrameRow>();
        var slowWindows = new List<FrameRow>();
        if (samples is not null)
        {
            var counts = new Dictionary<int, int>();
            foreach (var thread in samples.Threads)
            {
                foreach (var stack in thread.StackIds)
                {
                    counts[stack] = counts.GetValueOrDefault(stack) + 1;
                }
            }

            wholeRun = TopFrames(counts, samples, samples.TotalSamples * samples.IntervalMSec, ProfileRows);
        }

        var slowCounts = new Dictionary<int, int>();
        var pseudo = new double[attributor.Causes.Count];
        var values = new double[attributor.Causes.Count];
        foreach (var index in slowIndices)
        {
            ref var request = ref set.Requests.Requests[index];
            attributor.Measure(request, index, values);
            for (var c = 0; c < values.Length; c++)
            {
                if (attributor.Causes[c].Scope == "process" && attributor.Causes[c].Unit == CauseUnit.Milliseconds)
                {
                    pseudo[c] += values[c];
                }
            }

            if (samples is not null && samples.TryGetThread(request.ThreadId, out var thread))
            {
                var (first, end) = thread.Range(request.StartMSec, request.StopMSec);
                for (var i = first; i < end; i++)
                {
                    slowCounts[thread.StackIds[i]] = slowCounts.GetValueOrDefault(thread.StackIds[i]) + 1;
                }
            }
        }

        slowWindows = TopFrames(slowCounts, samples, slowTime, ProfileRows);
        for (var c = 0; c < pseudo.Length; c++)
        {
            if (pseudo[c] > 0)
            {
                var cause = attributor.Causes[c];
                slowWindows.Add(new FrameRow($"[{cause.Name}]", cause.IsGc ? "GC" : "runtime suspension", Population.Round(pseudo[c]),
                    slowTime > 0 ? Math.Round(pseudo[c] / slowTime, 4) : 0));
            }
        }

        slowWindows.Sort((a, b) => b.Ms != a.Ms ? b.Ms.CompareTo(a.Ms) : string.CompareOrdinal(a.Frame, b.Frame));
        if (slowWindows.Count > ProfileRows)
        {
            slowWindows = slowWindows[..ProfileRows];
        }

        var wholeBasis = samples is null
            ? "no samples"
            : $"all {samples.TotalSamples:N0} samples of the run, every thread (what a CPU profile shows; no GC inside: none are taken during a GC)";
        return new ProfileSection(wholeBasis, wholeRun,
            "the slow requests' windows: their own thread's samples, plus process-wide pauses as [bracketed] time", slowWindows);
    }

    private static string Verdict(List<CauseRow> rows, string selection, long slowCount)
    {
        CauseRow? top = null;
        foreach (var row in rows)
        {
            if (row.Unit == "ms" && (top is null || row.SlowShare > top.SlowShare))
            {
                top = row;
            }
        }

        if (slowCount == 0)
        {
            return $"No request is in the slow set ({selection}).";
        }

        var who = selection.StartsWith("slowest", StringComparison.Ordinal) ? $"the {selection}'s" : $"the {slowCount:N0} {selection}'s";
        if (top is null || top.SlowShare == 0)
        {
            return $"No recorded cause (GC, suspension, contention, JIT, nested activity, samples) overlaps {who} time.";
        }

        var pct = static (double share) => (share * 100).ToString(share < 0.1 ? "0.#" : "0", CultureInfo.InvariantCulture) + "%";
        var rest = top.Lift is not null
            ? $" (the rest of the requests: {pct(top.RestShare)}; {top.LiftText} over-represented in the tail)"
            : " (and none of the rest's)";
        const string samplesPrefix = "samples: ";
        var cause = top.Cause.StartsWith(samplesPrefix, StringComparison.Ordinal)
            ? $"{top.Cause[samplesPrefix.Length..]}, by CPU samples on the request's thread"
            : top.Cause;
        return top.SlowShare < 0.1
            ? $"No single recorded cause explains {who} time: the largest, {cause}, covers only {pct(top.SlowShare)}{rest}."
            : $"{pct(top.SlowShare)} of {who} time was spent in {cause}{rest}.";
    }
}
