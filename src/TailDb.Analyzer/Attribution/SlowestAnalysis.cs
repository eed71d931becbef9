using System.Globalization;
using TailDb.Analyzer.Causes;
using TailDb.Analyzer.Computers;
using TailDb.Analyzer.Sources;
using TailDb.Analyzer.Sources.NetTrace;
using TailDb.Analyzer.Stacks;
using TailDb.Analyzer.Sources.Etw;
using TailDb.Analyzer.Traces;
using TailDb.Cli;

using TailDb.Tracing;

namespace TailDb.Analyzer.Attribution;

/// <param name="ThresholdMs">When set, the slow set is every request at least this long; otherwise the slowest <paramref name="Percent"/>.</param>
internal sealed record SlowestSettings(
    string TracePath, RequestSelection Selection, double Percent = 1, double? ThresholdMs = null, int Top = 10, ScopeSettings? Scope = null);

/// <summary>
/// The `slowest` pipeline: one streaming pass (requests, phases, GC, suspensions, contention, JIT,
/// ...), then the samples' stacks; the scope (which requests, which latency) is resolved once; every
/// request in scope is measured against every cause, its queue and its service apart; the slow set
/// against the rest gives each cause's share and lift.
/// </summary>
internal static class SlowestAnalysis
{
    public static SlowestReport Run(SlowestSettings settings, IStackSampleReader? stackReader, CancellationToken cancellationToken = default) =>
        Run(settings, stackReader, inspect: null, cancellationToken);

    /// <param name="inspect">Sees the computers, the samples and the exact slow threshold before the report is built (the HTML report's pictures, export).</param>
    public static SlowestReport Run(
        SlowestSettings settings, IStackSampleReader? stackReader, Action<ComputerSet, SampleComputer?, AnalysisScope, double>? inspect,
        CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(settings);

        // Stacks first: the streaming reader checks every event's framing and refuses a corrupt file in
        // a moment, where TraceEvent can spend seconds allocating gigabytes for a corrupt metadata
        // field count before it fails (found by the byte-mutation tests).
        var kind = TraceFile.Check(settings.TracePath);
        var perf = stackReader is null || kind == TraceKind.Etl ? null : PerfSource.TryRead(settings.TracePath, kind, cancellationToken);
        var (samples, stacks) = kind == TraceKind.Etl ? (null, "") : perf is not null ? FromPerf(perf) : ReadSamples(settings.TracePath, stackReader, kind, cancellationToken);
        // A trace the stack reader read to its end has had its framing checked (truncated ones keep the walk:
        // it is what names the truncation). Samples from perf did not read the trace at all.
        var framingChecked = samples is not null && perf is null;
        var selection = RequestSources.Resolve(settings.TracePath, settings.Selection, kind, framingChecked);
        var set = ComputerSet.Run(settings.TracePath, selection, framingChecked, cancellationToken);
        var scope = AnalysisScope.Resolve(settings.Scope ?? ScopeSettings.Default, set);
        var population = new Population(set, scope);
        if (population.Paired == 0)
        {
            throw set.Facts.Lacking(ExitCode.NoRequests,
                $"{settings.TracePath}: no completed {selection.Provider} requests ({string.Join("/", selection.Activities)}) " +
                $"in {scope.RangeDescription}; activities seen for that provider: {Population.DescribeActivities(set)}{Population.DescribeTraceActivities(set.Facts)} (choose others with --provider/--activity, --phase)" +
                (string.Equals(selection.Provider, TailDbEventContract.ProviderName, StringComparison.OrdinalIgnoreCase) && !set.StoreEvents.Recorded
                    ? "; the trace has none of the store's request events: a trace recorded at --trace-level requests holds only the load test's or server's requests (record with --trace-level store)"
                    : ""));
        }

        if (kind == TraceKind.Etl)
        {
            // Machine-wide: the kernel's samples of the process the pass chose (docs/etl.md).
            (samples, stacks) = ReadSamples(settings.TracePath, stackReader is null ? null : new EtwStackSampleReader(set.Facts.ProcessId), kind, cancellationToken);
        }

        var attributor = new Attributor(set, samples, perf?.Scheduler);
        var (threshold, selectionText) = SlowThreshold(settings, population);
        inspect?.Invoke(set, samples, scope, threshold);
        var tally = Tally.Measure(set, scope, attributor, threshold);
        var causeRows = CauseRows(attributor.Causes, tally);
        var blame = RequestBlame.Build(set, scope, attributor, tally, threshold);
        var slowest = SlowestRows(settings.Top, tally, set, scope, attributor, samples, new BacklogBlame(set, scope, attributor, blame));
        var eventBasedOnly = samples is not null && threshold < samples.IntervalMSec;
        var profile = ProfileBuilder.Build(set, samples, attributor, tally.SlowIndices, tally.SlowTime, eventBasedOnly ? threshold : null);
        var verdict = Verdicts.Build(causeRows, scope.Basis, tally.SlowTime, eventBasedOnly, schedulerRecorded: perf is not null);
        var sentence = Verdicts.Sentence(verdict, selectionText, tally.SlowCount, threshold, samples?.IntervalMSec);
        var notes = Notes(set, samples, stacks, attributor, tally, scope, perf);
        return new SlowestReport("slowest", SlowestReport.CurrentSchemaVersion,
            Population.TraceSection(set, samples, stacks),
            new PopulationSection(selection.Provider, population.Activities, population.Nested, population.Paired, selectionText, tally.SlowCount,
                Population.Round(threshold), scope.Basis, scope.BasisDescription, scope.RangeDescription),
            causeRows, profile, slowest, sentence, tally.Payload.Rows(), notes, verdict);
    }

    private static (double Threshold, string Text) SlowThreshold(SlowestSettings settings, Population population)
    {
        if (settings.ThresholdMs is { } ms)
        {
            return (ms, $"requests of at least {ms.ToString("0.###", CultureInfo.InvariantCulture)} ms");
        }

        var k = (long)Math.Clamp(Math.Ceiling(population.Paired * settings.Percent / 100.0), 1, population.Paired);
        return (population.KthLongest(k), $"slowest {settings.Percent.ToString("0.###", CultureInfo.InvariantCulture)}%");
    }

    private static List<string> Notes(ComputerSet set, SampleComputer? samples, string stacks, Attributor attributor, Tally tally, AnalysisScope scope, PerfSource? perf)
    {
        var notes = Population.CommonNotes(set.Facts, set);
        var (pauses, pausedMs, overlappedMs) = GcOutsideRequests(set, attributor.Causes, tally);
        if (pauses > 0 && overlappedMs < pausedMs * 0.5 && scope.Basis == LatencyBasis.Service)
        {
            notes.Add($"GC paused the process {pauses:N0} times for {pausedMs.ToString("0.#", CultureInfo.InvariantCulture)} ms; request windows overlapped " +
                $"{overlappedMs.ToString("0.#", CultureInfo.InvariantCulture)} ms of it. A pause that falls between requests delays the requests queued behind it " +
                "(open-loop load), which their Start/Stop windows do not include: record the requests' arrival (a Start field arrivalTimestamp, " +
                "as the load test does) to see response time.");
        }

        if (samples is null)
        {
            notes.Add($"No CPU samples attributed: {stacks}.");
        }
        else if (perf is not null)
        {
            notes.Add("perf samples a thread only while it runs: its time off the CPU is the scheduler's lines (waiting for a CPU, asleep, in the kernel), with who held the CPU or woke it. " +
                "The traced process ran with DOTNET_PerfMapEnabled=1 and W^X off (DOTNET_EnableWriteXorExecute=0) so perf could name its JIT code; framework code precompiled ReadyToRun is named by module and offset.");
            if (PerfCoverageNote(set, scope, perf) is { } coverage)
            {
                notes.Add(coverage);
            }
        }
        else
        {
            notes.Add("The sample profiler takes no samples while a GC runs: GC time comes from the GC events (pause windows), not from samples.");
        }

        var safePoint = attributor.Causes.ToList().FindIndex(c => c.Kind == CauseKind.SafePointWait);
        // Named only when the wait matters to the tail: at least 5% of the slow set's time.
        if (attributor.SafePointHolders.Count > 0 && safePoint >= 0 && tally.SlowTime > 0 && tally.SlowTotals[safePoint] >= 0.05 * tally.SlowTime)
        {
            notes.Add("Sampler ticks held up waiting for a safe point: threads not serving requests were running " +
                string.Join(", ", attributor.SafePointHolders.Take(3).Select(h => $"{h.Frame} ({h.Ticks:N0} ticks)")) +
                " when those ticks completed. Counted as measurement overhead (no one waits without the sampler's suspension), but such a thread holds up a GC's suspension the same way.");
        }

        return notes;
    }

    /// <summary>
    /// Requests outside the perf file's reach: arrived before every CPU's events begin (a watch
    /// capture whose perf ring held less than its window, or a dump that held only what came since
    /// the previous one), or still running when the file ends early (perf script stopped at a
    /// damaged record). They have no samples and a scheduler view with holes, which the report
    /// must say rather than show as calm.
    /// </summary>
    private static string? PerfCoverageNote(ComputerSet set, AnalysisScope scope, PerfSource perf)
    {
        var requests = set.Requests.Requests;
        int before = 0, after = 0, inScope = 0;
        for (var i = 0; i < requests.Count; i++)
        {
            ref var record = ref requests[i];
            if (scope.Contains(record))
            {
                inScope++;
                if (record.ArrivalMSec < perf.CoveredFromMSec)
                {
                    before++;
                }
                else if (record.StopMSec > perf.CoveredUntilMSec)
                {
                    after++;
                }
            }
        }

        var file = Path.GetFileName(perf.Path);
        var notes = new List<string>(2);
        if (before > 0)
        {
            var from = perf.CoveredFromMSec.ToString("0.#", CultureInfo.InvariantCulture);
            notes.Add($"{before.ToString("N0", CultureInfo.InvariantCulture)} of the {Counted.Of(inScope, "request")} in scope arrived before {file} covers every CPU ({from} ms into the trace): " +
                "they have no perf samples and holes in the scheduler's view. A watch capture's perf file holds what perf's ring kept (--perf-ring-mb sizes it) since the previous capture.");
        }

        if (after > 0)
        {
            var until = perf.CoveredUntilMSec.ToString("0.#", CultureInfo.InvariantCulture);
            notes.Add($"{after.ToString("N0", CultureInfo.InvariantCulture)} of the {Counted.Of(inScope, "request")} in scope ended after {file} does ({until} ms into the trace): " +
                "perf script stopped at a damaged record in perf's data, so after that the requests have no perf samples and no scheduler view, and what the report says of them is the trace's events alone.");
        }

        return notes.Count > 0 ? string.Join(' ', notes) : null;
    }

    /// <summary>Total GC pause time against the pause time request windows saw (summed over requests).</summary>
    private static (int Pauses, double PausedMs, double OverlappedMs) GcOutsideRequests(ComputerSet set, IReadOnlyList<ICause> causes, Tally tally)
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
                overlapped += tally.SlowTotals[c] + tally.RestTotals[c];
            }
        }

        return (set.Gc.Pauses.Count, paused, overlapped);
    }

    /// <summary>perf's samples and scheduler events, beside the trace: the kernel sampled, the runtime never stopped for it.</summary>
    private static (SampleComputer? Samples, string Status) FromPerf(PerfSource perf)
    {
        var status = $"{Counted.Of(perf.Samples.Samples.Count, "on-CPU sample")} by perf at {perf.Header.RateHz} Hz per CPU (in the kernel: the runtime never stopped for them) " +
            $"and {Counted.Of(perf.Scheduler.Switches, "context switch", "context switches")}, {Counted.Of(perf.Scheduler.Wakeups, "wake-up")} from {Path.GetFileName(perf.Path)}" +
            (perf.Scheduler.UnrecordedSwitchIns > 0
                ? $"; {Counted.Of(perf.Scheduler.UnrecordedSwitchIns, "switch", "switches")} to a thread seen running were not recorded (perf misses switches from the idle task on some kernels; from the CPU's last event that named another thread to the first that named it, where it was is charged to no cause)"
                : "");
        return (perf.Samples.Samples.Count > 0 ? new SampleComputer(perf.Samples) : null, status);
    }

    private static (SampleComputer? Samples, string Status) ReadSamples(string path, IStackSampleReader? reader, TraceKind kind, CancellationToken cancellationToken)
    {
        if (reader is null)
        {
            return (null, "not read (--no-stacks, or no stack reader in this build)");
        }


        try
        {
            var set = reader.Read(path, cancellationToken);
            if (set.Samples.Count == 0)
            {
                return (null, kind == TraceKind.Etl
                    ? "no kernel CPU samples of the process in the trace (record with PerfView's CPU samples, /KernelEvents=Profile)"
                    : "no sample profiler events in the trace (record with Microsoft-DotNETCore-SampleProfiler)");
            }

            var status = $"{Counted.Of(set.Samples.Count, "sample")} read by {reader.GetType().Name}";
            if (set.UnresolvedFrames > 0)
            {
                status += $"; {Counted.Of(set.UnresolvedFrames, "frame")} unresolved (no method range: no rundown, or native code)";
            }

            return (new SampleComputer(set), status);
        }
        catch (TraceFormatException e) when (e.Problem is not (TraceFormatProblem.Truncated or TraceFormatProblem.NewerFormat))
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

    private static List<CauseRow> CauseRows(IReadOnlyList<ICause> causes, Tally tally)
    {
        var rows = new List<CauseRow>();
        for (var c = 0; c < causes.Count; c++)
        {
            if (tally.SlowTotals[c] == 0 && tally.RestTotals[c] == 0)
            {
                continue;
            }

            var cause = causes[c];
            double slowShare, restShare;
            if (cause.Unit == CauseUnit.Milliseconds)
            {
                slowShare = tally.SlowTime > 0 ? Math.Min(1, tally.SlowTotals[c] / tally.SlowTime) : 0;
                restShare = tally.RestTime > 0 ? Math.Min(1, tally.RestTotals[c] / tally.RestTime) : 0;
            }
            else
            {
                slowShare = tally.SlowCount > 0 ? tally.SlowTotals[c] / tally.SlowCount : 0;
                restShare = tally.RestCount > 0 ? tally.RestTotals[c] / tally.RestCount : 0;
            }

            double? lift = restShare > 0 ? Math.Round(slowShare / restShare, 2) : null;
            rows.Add(new CauseRow(cause.Name, cause.Scope.Symbol(), cause.Unit, Math.Round(slowShare, 4), Math.Round(restShare, 4), lift,
                Population.Round(tally.SlowTotals[c]), Population.Round(tally.RestTotals[c]), cause.Kind,
                Population.Round(tally.SlowQueueTotals[c]), cause.IsMeasurement, cause.IsEventBased));
        }

        HolderRows.Lump(rows, tally.SlowTime, tally.RestTime);

        // Time causes first, by their share of the slow set's time; ties by name keep the order stable.
        rows.Sort((a, b) =>
        {
            var unit = a.Unit.CompareTo(b.Unit);
            if (unit != 0)
            {
                return unit;
            }

            var share = b.SlowShare.CompareTo(a.SlowShare);
            return share != 0 ? share : string.CompareOrdinal(a.Cause, b.Cause);
        });
        return rows;
    }

    private static List<SlowRequestRow> SlowestRows(
        int top, Tally tally, ComputerSet set, AnalysisScope scope, Attributor attributor, SampleComputer? samples, BacklogBlame blame)
    {
        var requests = set.Requests.Requests;
        tally.SlowIndices.Sort((a, b) => scope.Latency(requests[b]).CompareTo(scope.Latency(requests[a])));
        var rows = new List<SlowRequestRow>();
        for (var r = 0; r < tally.SlowIndices.Count && r < top; r++)
        {
            rows.Add(SlowRow(r + 1, tally.SlowIndices[r], set, scope, attributor, samples, blame));
        }

        return rows;
    }

    private static SlowRequestRow SlowRow(int rank, int index, ComputerSet set, AnalysisScope scope, Attributor attributor, SampleComputer? samples, BacklogBlame blame)
    {
        ref var request = ref set.Requests.Requests[index];
        var activity = set.Requests.Activities[request.Activity];
        var fields = new Dictionary<string, long>(StringComparer.Ordinal);
        Dictionary<string, string>? text = null;
        for (var f = 0; f < activity.FieldNames.Count; f++)
        {
            if (!activity.TryGet(request, f, out var value))
            {
                continue;
            }

            if (activity.IsText(f))
            {
                (text ??= new Dictionary<string, string>(StringComparer.Ordinal))[activity.FieldNames[f]] = activity.TextOf(f, value);
            }
            else
            {
                fields[activity.FieldNames[f]] = value;
            }
        }

        var (queue, service, whole) = MeasureParts(attributor, scope, request, index);
        var response = scope.Basis == LatencyBasis.Response;
        var (from, to) = response ? (request.ArrivalMSec, request.StopMSec) : (request.StartMSec, request.StopMSec);
        var top = TopFrames.For(samples, request.ThreadId, from, to, scope.Latency(request), 3);
        return new SlowRequestRow(rank, activity.Name, Population.Round(from), Population.Round(scope.Latency(request)), request.ThreadId,
            fields, Overlaps(attributor, whole), top,
            Population.Round(response ? request.QueueMSec : 0), Population.Round(request.DurationMSec),
            Overlaps(attributor, queue), Overlaps(attributor, service), text, blame.Name(index, whole));
    }

    /// <summary>Each cause's overlap with the request's queue (when the scope measures response time), its service, and both.</summary>
    internal static (double[] Queue, double[] Service, double[] Whole) MeasureParts(Attributor attributor, AnalysisScope scope, in RequestRecord request, int index)
    {
        var queue = new double[attributor.Causes.Count];
        var service = new double[attributor.Causes.Count];
        if (scope.Basis == LatencyBasis.Response)
        {
            attributor.Measure(request, index, RequestPart.Queue, queue);
        }

        attributor.Measure(request, index, RequestPart.Service, service);
        var whole = new double[queue.Length];
        for (var c = 0; c < whole.Length; c++)
        {
            whole[c] = queue[c] + service[c];
        }

        return (queue, service, whole);
    }

    private static List<CauseOverlap> Overlaps(Attributor attributor, double[] values)
    {
        var overlaps = new List<CauseOverlap>();
        for (var c = 0; c < values.Length; c++)
        {
            if (values[c] > 0)
            {
                var cause = attributor.Causes[c];
                overlaps.Add(new CauseOverlap(cause.Name, cause.Unit, Population.Round(values[c]), cause.Kind));
            }
        }

        overlaps.Sort((a, b) => b.Value.CompareTo(a.Value));
        return overlaps;
    }
}
