using System.Globalization;
using TailDb.Analyzer.Attribution;
using TailDb.Analyzer.Causes;
using TailDb.Analyzer.Computers;
using TailDb.Analyzer.Reports;
using TailDb.Analyzer.Traces;
using TailDb.LoadTest.Injections;

namespace TailDb.LoadTest.Tests.Injections;

/// <summary>
/// How well the analyzer's slow set matches an injected run's truth: of the requests an injection
/// slowed past the slow threshold (<see cref="SlowedPast"/>), how many are in the slow set (found) and how many of those have
/// the injected cause that held them longest first (right cause, <see cref="Largest"/>); of the slow set, how many are blamed first on a cause
/// that was neither injected nor GC (false blame), how many on an injected lock or sleep cause
/// though no firing of it touched the request (misplaced: reported, not a goal, since the cause was
/// injected; on a loaded machine a load thread that woke late shows as "blocked / sleeping"), and how many have no recorded cause at all
/// beyond queueing behind earlier requests (unexplained: on a shared machine, a load thread the OS
/// did not run; counted apart, not as blame), and how many are named the machine's (a wait for a CPU
/// someone else held, a pacing wait that woke late: scheduler facts, not inferences, mostly the load
/// test's own threads draining the backlog a long GC pause left on 2 CPUs; counted apart, not as
/// blame; the CPU-hog's and stress-ng's holds are still matched by name), and, in a trace without
/// the scheduler's events, how many are named app code's samples in an allocation burst's shadow
/// (<see cref="BurstShadow"/>: counted apart, not as blame). A row's "first" cause is the cause the analyzer names
/// for it (<see cref="SlowRequestRow.Named"/>: event-based causes as measured, sample-based ones only
/// beyond what ordinary requests' samples show); a row named only "earlier requests on the same
/// thread" counts as unexplained. <see cref="StrictRightCause"/> is the older, stricter reading: the
/// row's largest raw non-measurement overlap, earlier requests included.
/// </summary>
internal sealed record InjectionScore(
    int SlowedPastThreshold, int Found, int RightCause, int StrictRightCause, int SlowSet, int FalseBlame, int Misplaced, int Unexplained, int Machine, double ThresholdMs,
    IReadOnlyDictionary<string, int> FirstCauses, IReadOnlyDictionary<string, int> FirstCausesByInjection,
    IReadOnlyDictionary<string, KindScore> ByKind)
{
    /// <summary>Every request slowed past the threshold and found but not named its injected cause, with what the truth and the analyzer saw.</summary>
    public IReadOnlyList<InjectionMiss> Misses { get; init; } = [];

    /// <summary>Every slow-set row counted as false blame, to read what the trace shows behind it.</summary>
    public IReadOnlyList<SlowRequestRow> FalseBlamed { get; init; } = [];

    /// <summary>The false-blamed rows' named causes, with counts: what a failing run blamed.</summary>
    public IReadOnlyDictionary<string, int> FalseBlameCauses => FalseBlamed.CountBy(r => r.Named!.Cause).ToDictionary();

    /// <summary>Rows are matched to the truth by arrival; the report rounds times to the microsecond.</summary>
    private const double MatchMs = 0.005;

    public double FoundShare => SlowedPastThreshold == 0 ? 0 : (double)Found / SlowedPastThreshold;

    public double RightCauseShare => SlowedPastThreshold == 0 ? 0 : (double)RightCause / SlowedPastThreshold;

    public double FalseBlameShare => SlowSet == 0 ? 0 : (double)FalseBlame / SlowSet;

    /// <summary>Stretches of one thread's time covered by overlapping slow requests: one stall and the requests queued behind it are one.</summary>
    public int SlowIncidents { get; init; }

    /// <summary>As <see cref="SlowIncidents"/>, over the false-blamed rows alone.</summary>
    public int FalseBlameIncidents { get; init; }

    public double FalseBlameIncidentShare => SlowIncidents == 0 ? 0 : (double)FalseBlameIncidents / SlowIncidents;

    /// <summary>
    /// Rows named app code's samples in an incident (a stall and the requests queued behind it on one
    /// thread) that overlaps an alloc-burst firing, in a trace without the scheduler's events. The
    /// burst allocates on the injector's thread, one of the two CPUs' worth of work beside two load
    /// threads, and a load thread waiting for a CPU shows its app-code stack tick after tick to
    /// EventPipe's sampler: the analyzer cannot tell that wait from work, and the truth charges a
    /// burst only its GC pauses. Not blame, not a right answer either: reported. A 2026-11-28
    /// fresh-clone CI failed on one incident like it: 136 requests (10.6% of the slow set) on both
    /// load threads, queued 16-33 ms, each window holding 1.0-4.2 ms of gen1 pauses (what a burst
    /// triggers) and 1.8-4.4 ms of sampler ticks held up at a safe point (a thread not running), and
    /// named app code for 2.8-5.7 ms of samples. The kernel sampler names such a wait (a wait for a CPU).
    /// </summary>
    public int BurstShadow { get; init; }

    // False blame leads: CI prints only the first 400 characters of a failure's message.
    public string Describe() => string.Create(CultureInfo.InvariantCulture,
        $"false blame {FalseBlame} of {SlowSet} ({FalseBlameShare:P1}) on: {(FalseBlame == 0 ? "nothing" : Join(FalseBlameCauses))}; " +
        $"as incidents {FalseBlameIncidents} of {SlowIncidents} ({FalseBlameIncidentShare:P1}); " +
        $"threshold {ThresholdMs:0.###} ms; slowed past it by an injection: {SlowedPastThreshold}; found {Found} ({FoundShare:P1}); " +
        $"right cause named {RightCause} ({RightCauseShare:P1}; {StrictRightCause} by the largest raw overlap); " +
        $"blamed on a lock or sleep cause that was injected but not fired at that request {Misplaced} (allowed: the cause was injected); per injection (slowed / found / right cause): {string.Join(", ", ByKind.OrderBy(p => p.Key, StringComparer.Ordinal).Select(p => $"{p.Key} {p.Value.Slowed} / {p.Value.Found} / {p.Value.RightCause}"))}; unexplained {Unexplained} (queued behind earlier requests, nothing recorded behind them); the machine's {Machine} (a wait for a CPU held by another thread or process, a late pacing wake; not blame); app code's samples in an alloc burst's shadow, no scheduler events {BurstShadow} (not blame); first causes: {Join(FirstCauses)}; by injection: {Join(FirstCausesByInjection)}");

    private static string Join(IReadOnlyDictionary<string, int> counts) =>
        string.Join(", ", counts.OrderByDescending(p => p.Value).Select(p => $"{p.Key} {p.Value}"));

    /// <param name="alsoKnown">A cause that is known and not blame though no injection made it (stress-ng's hold on the CPUs, in a run beside it).</param>
    public static InjectionScore Of(TruthFile truth, SlowestReport report, TraceClock clock, Func<(string Name, CauseKind Kind), bool>? alsoKnown = null)
    {
        var kindOf = report.Causes.ToDictionary(c => c.Cause, c => c.Kind);
        var rows = report.Slowest.OrderBy(r => r.StartMs).ToArray();
        var arrivals = rows.Select(r => r.StartMs).ToArray();
        double threshold = report.Population.ThresholdMs;

        int slowed = 0, found = 0, right = 0, strict = 0;
        var byInjection = new Dictionary<string, int>();
        var byKind = new Dictionary<string, KindScore>();
        var misses = new List<InjectionMiss>();
        foreach (var request in truth.Requests.GroupBy(r => r.Arrival).Where(r => SlowedPast(r.ToArray(), threshold)))
        {
            slowed++;
            var injected = request.Select(r => truth.Injections[r.Injection].Kind).ToHashSet();
            string kinds = string.Join("+", injected.Order());
            var kindScore = byKind.GetValueOrDefault(kinds) with { Slowed = byKind.GetValueOrDefault(kinds).Slowed + 1 };
            byKind[kinds] = kindScore;
            if (Find(rows, arrivals, clock.RelativeMSec(request.Key)) is not { } row)
            {
                continue;
            }

            found++;
            string key = $"{kinds}{(request.All(r => r.Queued) ? " (queued behind)" : "")} -> {FirstCause(row, kindOf, named: true)?.Name ?? row.Named?.Cause ?? "(none)"}";
            byInjection[key] = byInjection.GetValueOrDefault(key) + 1;
            InjectionKind largest = Largest(truth, request);
            bool isRight = Matches(largest, FirstCause(row, kindOf, named: true));
            right += isRight ? 1 : 0;
            strict += Matches(largest, FirstCause(row, kindOf, named: false)) ? 1 : 0;
            byKind[kinds] = kindScore with { Found = kindScore.Found + 1, RightCause = kindScore.RightCause + (isRight ? 1 : 0) };
            if (!isRight)
            {
                misses.Add(new InjectionMiss(row, [.. request.Select(r => (truth.Injections[r.Injection].Kind, r))]));
            }
        }

        var injectedKinds = truth.Injections.Select(i => i.Kind).ToHashSet();
        var firedAt = truth.Requests.GroupBy(r => truth.Injections[r.Injection].Kind)
            .ToDictionary(g => g.Key, g => g.Select(r => clock.RelativeMSec(r.Arrival)).Order().ToArray());
        int falseBlame = 0, misplaced = 0, unexplained = 0, machine = 0, shadow = 0;
        var shadowed = report.VerdictDetail is { SchedulerRecorded: true } ? [] : InBurstShadow(truth, rows, clock);
        var falseBlamed = new List<SlowRequestRow>();
        var firstCauses = new Dictionary<string, int>();
        foreach (var row in rows)
        {
            var first = FirstCause(row, kindOf, named: true);
            string name = first?.Name ?? "(none)";
            firstCauses[name] = firstCauses.GetValueOrDefault(name) + 1;
            if (first is not { } cause)
            {
                unexplained++;
                continue;
            }

            bool known = IsGc(cause) || injectedKinds.Any(k => Matches(k, cause)) || (alsoKnown?.Invoke(cause) ?? false);
            if (!known && IsMachine(cause.Kind))
            {
                machine++;
            }
            else if (!known && cause.Kind == CauseKind.Samples && cause.Name == AppSamples && shadowed.Contains(row))
            {
                shadow++;
            }
            else if (!known)
            {
                falseBlame++;
                falseBlamed.Add(row);
            }

            misplaced += cause.Kind != CauseKind.GcPause
                && injectedKinds.Any(k => Matches(k, cause))
                && !injectedKinds.Any(k => Matches(k, cause) && firedAt.TryGetValue(k, out var at) && Near(at, row.StartMs)) ? 1 : 0;
        }

        return new InjectionScore(slowed, found, right, strict, rows.Length, falseBlame, misplaced, unexplained, machine, threshold, firstCauses, byInjection, byKind)
        {
            Misses = misses,
            FalseBlamed = falseBlamed,
            SlowIncidents = Incidents(rows),
            FalseBlameIncidents = Incidents(falseBlamed),
            BurstShadow = shadow,
        };
    }

    private static readonly string AppSamples = SampleCause.NameOf(SampleCategory.App);

    /// <summary>The rows of every incident (<see cref="IncidentsOf"/>) that overlaps an alloc-burst firing's window.</summary>
    private static HashSet<SlowRequestRow> InBurstShadow(TruthFile truth, SlowRequestRow[] rows, TraceClock clock)
    {
        var bursts = truth.Windows.Where(w => truth.Injections[w.Injection].Kind == InjectionKind.AllocBurst)
            .Select(w => (Start: clock.RelativeMSec(w.Start), Stop: clock.RelativeMSec(w.Stop))).ToArray();
        return IncidentsOf(rows).Where(i => bursts.Any(b => b.Start < i.End && i.Start < b.Stop))
            .SelectMany(i => i.Rows).ToHashSet<SlowRequestRow>(ReferenceEqualityComparer.Instance);
    }

    /// <summary>
    /// The true cause that held the request longest: the injection kind with the most injected time
    /// on it (a GC firing and a burst both stand for GC pauses). Every GC pause that is not a firing's
    /// (the app's own gen0/gen1) is subtracted from the other firings' time (<see cref="TruthFile"/>),
    /// and a request is slowed past the threshold only when the injected time is at least half its
    /// response, so the largest injected kind is also larger than any pause the truth does not charge.
    /// Right cause: the analyzer names this one. A request both queued behind a sleep and paused by a
    /// forced GC is right only when it names the longer of the two.
    /// </summary>
    public static InjectionKind Largest(TruthFile truth, IEnumerable<AffectedRequest> firings) =>
        firings.GroupBy(f => truth.Injections[f.Injection].Kind is InjectionKind.AllocBurst ? InjectionKind.Gc : truth.Injections[f.Injection].Kind)
            .Select(g => (Kind: g.Key, Ms: g.Sum(f => f.InjectedMs)))
            .OrderByDescending(k => k.Ms).ThenBy(k => k.Kind)
            .First().Kind;

    /// <summary>
    /// Whether the firings made this request slow: it is at or over the threshold, it would have been
    /// under it without the injected time, and the injected time is at least half its response (so
    /// the injected cause is the one to name first). A request the OS starved for longer than any
    /// firing held it is not the injection's to explain.
    /// </summary>
    public static bool SlowedPast(IReadOnlyList<AffectedRequest> firings, double thresholdMs)
    {
        double response = firings[0].ResponseMs;
        double injected = Math.Min(response, firings.Sum(f => f.InjectedMs));
        return response >= thresholdMs && response - injected < thresholdMs && injected >= response / 2;
    }

    /// <summary>
    /// The cause each injection produces, as the analyzer names its kind: by EventPipe's sampler (a
    /// blocked thread's samples) or by perf's scheduler view (a sleep is the thread off CPU asleep; a
    /// CPU hog is a wait for a CPU the hog held; page faults are the kernel's samples).
    /// </summary>
    public static bool Matches(InjectionKind injected, (string Name, CauseKind Kind)? cause) => cause is { } c && injected switch
    {
        InjectionKind.Gc or InjectionKind.AllocBurst => c.Kind == CauseKind.GcPause,
        InjectionKind.Lock => c.Kind == CauseKind.Contention || (c.Kind == CauseKind.Samples && c.Name.Contains("lock contention", StringComparison.Ordinal)),
        InjectionKind.CpuHog => c.Kind == CauseKind.CpuWait && c.Name.Contains(CpuHog.ProcessName, StringComparison.Ordinal),
        // The fault's own samples, or its time off the CPU mid-fault (preempted while faulting, asleep in reclaim).
        InjectionKind.PageFaults => (c.Kind == CauseKind.Samples && c.Name.Contains("page faults", StringComparison.Ordinal)) || c.Kind is CauseKind.OffCpuInFault or CauseKind.CpuWaitInFault,
        _ => (c.Kind == CauseKind.Samples && c.Name.Contains("sleeping", StringComparison.Ordinal)) || (c.Kind == CauseKind.OffCpu && c.Name.Contains("asleep", StringComparison.Ordinal)),
    };

    /// <summary>
    /// A GC, by its pause events or by the samples the analyzer files as GC (allocating, in GC
    /// frames, parked for a GC): the same cause seen two ways, never false blame. Counting only the
    /// events made a run whose alloc bursts showed through samples fail at 5.6% (48 of 1,017 slow
    /// requests named "samples: GC", 2026-11-27 fresh-clone CI).
    /// </summary>
    private static bool IsGc((string Name, CauseKind Kind) cause) =>
        cause.Kind == CauseKind.GcPause || (cause.Kind == CauseKind.Samples && cause.Name == GcSamples);

    private static readonly string GcSamples = SampleCause.NameOf(SampleCategory.Gc);

    /// <summary>The causes the analyzer itself files as the machine's (or the load generator's), from the scheduler's events.</summary>
    private static bool IsMachine(CauseKind kind) => kind is CauseKind.CpuWait or CauseKind.LateWake;

    private static (string Name, CauseKind Kind)? FirstCause(SlowRequestRow row, Dictionary<string, CauseKind> kindOf, bool named)
    {
        if (named)
        {
            return row.Named is { } cause && cause.Kind != CauseKind.EarlierRequests ? (cause.Cause, cause.Kind) : null;
        }

        foreach (var overlap in row.Causes)
        {
            if (overlap.Unit != CauseUnit.Milliseconds || !kindOf.TryGetValue(overlap.Cause, out var kind)
                || kind is CauseKind.SamplerSuspension or CauseKind.TracingSamples or CauseKind.SafePointWait)
            {
                continue;
            }

            return (overlap.Cause, kind);
        }

        return null;
    }

    private static int Incidents(IEnumerable<SlowRequestRow> rows) => IncidentsOf(rows).Count();

    /// <summary>Stretches of one thread's time covered by overlapping slow requests, with their rows: one stall and the requests queued behind it are one.</summary>
    private static IEnumerable<(double Start, double End, List<SlowRequestRow> Rows)> IncidentsOf(IEnumerable<SlowRequestRow> rows)
    {
        foreach (var thread in rows.GroupBy(r => r.ThreadId))
        {
            List<SlowRequestRow> incident = [];
            double start = 0, end = double.NegativeInfinity;
            foreach (var row in thread.OrderBy(r => r.StartMs))
            {
                if (row.StartMs > end && incident.Count > 0)
                {
                    yield return (start, end, incident);
                    incident = [];
                }

                if (incident.Count == 0)
                {
                    start = row.StartMs;
                }

                incident.Add(row);
                end = Math.Max(end, row.StartMs + row.DurationMs);
            }

            if (incident.Count > 0)
            {
                yield return (start, end, incident);
            }
        }
    }

    private static bool Near(double[] sorted, double ms)
    {
        int i = Array.BinarySearch(sorted, ms);
        i = i < 0 ? ~i : i;
        return (i < sorted.Length && Math.Abs(sorted[i] - ms) <= MatchMs) || (i > 0 && Math.Abs(sorted[i - 1] - ms) <= MatchMs);
    }

    private static SlowRequestRow? Find(SlowRequestRow[] rows, double[] arrivals, double arrivalMs)
    {
        int i = Array.BinarySearch(arrivals, arrivalMs);
        i = i < 0 ? ~i : i;
        foreach (int candidate in new[] { i - 1, i })
        {
            if (candidate >= 0 && candidate < rows.Length && Math.Abs(arrivals[candidate] - arrivalMs) <= MatchMs)
            {
                return rows[candidate];
            }
        }

        return null;
    }
}

/// <summary>One injection kind's (or a combination's) requests slowed past the threshold, found in the slow set, and with the right cause first.</summary>
internal readonly record struct KindScore(int Slowed, int Found, int RightCause);

/// <summary>A request an injection slowed past the threshold that the analyzer found but named another cause for: its row, and each firing's truth.</summary>
internal sealed record InjectionMiss(SlowRequestRow Row, IReadOnlyList<(InjectionKind Kind, AffectedRequest Truth)> Firings)
{
    /// <summary>One line: the request, what the truth charged each firing, what the analyzer named and what overlapped it.</summary>
    public string Describe()
    {
        string injected = string.Join(" + ", Firings.Select(f => FormattableString.Invariant($"{f.Kind}{(f.Truth.Queued ? " queued" : "")} {f.Truth.InjectedMs:0.###}")));
        string overlaps = string.Join(", ", Row.Causes.Where(c => c.Unit == CauseUnit.Milliseconds).Take(6).Select(c => FormattableString.Invariant($"{c.Cause} {c.Value:0.###}")));
        return FormattableString.Invariant(
            $"at {Row.StartMs:0.000} ms thread {Row.ThreadId}: response {Row.DurationMs:0.###} (queue {Row.QueueMs:0.###}; the load test's own: {Firings[0].Truth.ResponseMs:0.###}); truth: {injected}; named: {Row.Named?.Cause ?? "(none)"} {Row.Named?.Value ?? 0:0.###}; overlaps: {overlaps}");
    }
}
