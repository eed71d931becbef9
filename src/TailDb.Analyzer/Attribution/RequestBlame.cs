using TailDb.Analyzer.Causes;
using TailDb.Analyzer.Computers;

namespace TailDb.Analyzer.Attribution;

/// <summary>Where a thread was when a sample caught it: serving a request or not, running code or stopped.</summary>
internal enum SampleSituation
{
    ServingRunning,
    ServingStopped,
    IdleRunning,
    IdleStopped,
}

internal static class SampleSituations
{
    public const int Count = 4;

    public static SampleSituation Of(bool serving, bool running) => (serving, running) switch
    {
        (true, true) => SampleSituation.ServingRunning,
        (true, false) => SampleSituation.ServingStopped,
        (false, true) => SampleSituation.IdleRunning,
        _ => SampleSituation.IdleStopped,
    };
}

/// <summary>
/// Names one slow request's cause: its largest cause that is not the measurement's own cost, with
/// "earlier requests on the same thread" only when nothing else is left (it says where the time went,
/// not why).
/// <para>
/// Event-based causes are measured exactly (a GC paused the process inside the request, the thread
/// waited on a lock) and count as measured. A CPU sample only says where the thread's stack was at
/// one tick. A thread the OS preempted, or one stalled in the runtime's native code (an allocation
/// waiting while another thread's burst triggers GCs), shows its ordinary app-code stack tick after
/// tick, exactly as if it were working there; a trace without scheduler events cannot tell the two
/// apart. So a sample-based cause counts for a request only by how far its samples exceed what
/// ordinary requests' samples show (the rest of the requests in scope), and only when the excess is
/// significant: at least <see cref="MinExcessSamples"/> samples and <see cref="Sigmas"/> standard
/// deviations. Samples of a running thread are held against the mix of code ordinary requests run
/// (a thread stretched by the OS or the runtime shows that same mix, only more of it); samples of a
/// stopped thread (a lock, a sleep, a file) against how often ordinary requests are caught stopped
/// that way. Both serving a request (its own service, or in its queue the service of the request in
/// front) and not serving are held against ordinary requests in the same situation.
/// </para>
/// <para>
/// Causes that run beside the requests rather than stop them (store upkeep) are named only when
/// the slow set shows more of them than the rest (an eviction that overlaps every request alike is
/// not why some of them were slow) and when they covered at least <see cref="MinShare"/> of the request.
/// </para>
/// </summary>
internal sealed class RequestBlame
{
    /// <summary>One sample is one tick: a hit, not a measurement.</summary>
    internal const double MinExcessSamples = 2;

    internal const double Sigmas = 2;

    private static readonly int GroupCount = Enum.GetValues<CauseGroup>().Length;

    /// <summary>
    /// A cause running beside the request that covered less of it than this explains little of it
    /// (the verdict's own bar, "no single recorded cause explains ..."). Causes that stop the
    /// request (a pause, a lock) are named whatever their share: they are exact and they are there.
    /// </summary>
    internal const double MinShare = 0.1;

    private readonly Attributor _attributor;
    private readonly AnalysisScope _scope;
    private readonly int _slots;
    // Per situation and cause slot: the ordinary share of that cause among the samples it is held against.
    private readonly double[] _ordinary;
    private readonly bool[] _notOverRepresented;
    private readonly bool[] _beside;
    private readonly int[] _counts;
    private readonly CauseGroup[] _groups;
    // Per cause, the time that counts for one request (0 when it does not); reused across requests.
    private readonly double[] _values;

    private RequestBlame(Attributor attributor, AnalysisScope scope, double[] ordinary, bool[] notOverRepresented)
    {
        _beside = [.. attributor.Causes.Select(c => RunsBeside(c.Kind))];
        _attributor = attributor;
        _scope = scope;
        _slots = attributor.NoCauseSlot + 1;
        _ordinary = ordinary;
        _notOverRepresented = notOverRepresented;
        _counts = new int[ordinary.Length];
        _groups = [.. attributor.Causes.Select(c => c.Group)];
        _values = new double[attributor.Causes.Count];
    }

    /// <summary>The rest of the requests (in scope, under <paramref name="threshold"/>) give the ordinary share of each sample cause.</summary>
    public static RequestBlame Build(ComputerSet set, AnalysisScope scope, Attributor attributor, Tally tally, double threshold)
    {
        ArgumentNullException.ThrowIfNull(set);
        ArgumentNullException.ThrowIfNull(scope);
        ArgumentNullException.ThrowIfNull(attributor);
        ArgumentNullException.ThrowIfNull(tally);
        var slots = attributor.NoCauseSlot + 1;
        var totals = new long[SampleSituations.Count * slots];
        var one = new int[totals.Length];
        var requests = set.Requests.Requests;
        for (var i = 0; i < requests.Count; i++)
        {
            ref var request = ref requests[i];
            if (scope.Contains(request) && scope.Latency(request) < threshold)
            {
                Array.Clear(one);
                Count(attributor, scope, request, one);
                for (var s = 0; s < one.Length; s++)
                {
                    totals[s] += one[s];
                }
            }
        }

        var ordinary = new double[totals.Length];
        foreach (var situation in Enum.GetValues<SampleSituation>())
        {
            var against = Against(situation);
            var of = totals.AsSpan(Block(situation, slots), slots);
            var total = Sum(totals, against, slots);
            for (var c = 0; c < slots; c++)
            {
                ordinary[Block(situation, slots) + c] = total > 0 ? (double)of[c] / total : 0;
            }
        }

        var causes = attributor.Causes;
        var notOverRepresented = new bool[causes.Count];
        for (var c = 0; c < causes.Count; c++)
        {
            var slowShare = tally.SlowTime > 0 ? tally.SlowTotals[c] / tally.SlowTime : 0;
            var restShare = tally.RestTime > 0 ? tally.RestTotals[c] / tally.RestTime : 0;
            notOverRepresented[c] = RunsBeside(causes[c].Kind) && slowShare <= restShare;
        }

        return new RequestBlame(attributor, scope, ordinary, notOverRepresented);
    }

    /// <param name="whole">Each cause's overlap with the request's whole window (queue and service).</param>
    public CauseOverlap? Name(in RequestRecord request, double[] whole)
    {
        ArgumentNullException.ThrowIfNull(whole);
        Array.Clear(_counts);
        Count(_attributor, _scope, request, _counts);

        var causes = _attributor.Causes;
        var queuedBehind = -1;
        Array.Clear(_values);
        for (var c = 0; c < causes.Count; c++)
        {
            var cause = causes[c];
            if (cause.Unit != CauseUnit.Milliseconds || cause.IsMeasurement || _notOverRepresented[c] || whole[c] <= 0)
            {
                continue;
            }

            if (cause.Kind == CauseKind.EarlierRequests)
            {
                queuedBehind = c;
                continue;
            }

            // Inferred from samples: only what ordinary requests' samples do not show counts.
            _values[c] = !cause.IsEventBased ? Math.Min(whole[c], _attributor.SampleIntervalMSec * ExcessSamples(c)) : whole[c];
        }

        var (best, bestValue) = Largest(_values, _groups);

        if (best < 0 && queuedBehind >= 0)
        {
            (best, bestValue) = (queuedBehind, whole[queuedBehind]);
        }

        if (best >= 0 && _beside[best] && bestValue < MinShare * _scope.Latency(request))
        {
            best = -1;
        }

        return best < 0 ? null : new CauseOverlap(causes[best].Name, causes[best].Unit, Population.Round(bestValue), causes[best].Kind);
    }

    /// <summary>
    /// The cause with the most time, a group's parts (<see cref="CauseGroup"/>) counted together: a
    /// request faulting 17 ms on the CPU and 52 ms preempted mid-fault, beside a 52 ms GC pause, was
    /// held longest by page faults. Named after the group's largest part, valued at the group's
    /// whole; (-1, 0) when no value is positive. Ties go to the earlier cause (the registry's order).
    /// </summary>
    internal static (int Cause, double Value) Largest(ReadOnlySpan<double> values, ReadOnlySpan<CauseGroup> groups)
    {
        Span<double> groupTotals = stackalloc double[GroupCount];
        groupTotals.Clear();
        for (var c = 0; c < values.Length; c++)
        {
            groupTotals[(int)groups[c]] += values[c];
        }

        int best = -1;
        var bestValue = 0.0;
        for (var c = 0; c < values.Length; c++)
        {
            var value = groups[c] == CauseGroup.None ? values[c] : groupTotals[(int)groups[c]];
            // Within a group every part has the group's value: the largest part names it.
            if (values[c] > 0 && (value > bestValue || (best >= 0 && groups[c] != CauseGroup.None && groups[c] == groups[best] && values[c] > values[best])))
            {
                (best, bestValue) = (c, value);
            }
        }

        return (best, bestValue);
    }

    /// <summary>This request's samples of cause <paramref name="cause"/> beyond the ordinary, in every situation; 0 unless significant.</summary>
    private double ExcessSamples(int cause)
    {
        double observed = 0, expected = 0, variance = 0;
        foreach (var situation in Enum.GetValues<SampleSituation>())
        {
            var against = Against(situation);
            var n = Sum(_counts, against, _slots);
            var share = _ordinary[Block(situation, _slots) + cause];
            observed += _counts[Block(situation, _slots) + cause];
            expected += n * share;
            variance += n * share * (1 - share);
        }

        return Significant(observed - expected, variance);
    }

    /// <summary>Runs beside the requests rather than stopping them: overlapping one is not, by itself, slowing it.</summary>
    private static bool RunsBeside(CauseKind kind) => kind == CauseKind.StoreUpkeep;

    /// <summary>An excess of samples over the ordinary, or 0 when it is within chance (binomial spread) or a single tick.</summary>
    internal static double Significant(double excess, double variance) =>
        excess >= MinExcessSamples && excess > Sigmas * Math.Sqrt(Math.Max(0, variance)) ? excess : 0;

    /// <summary>
    /// The situations a situation's samples are counted among: a running thread's among the running
    /// samples of the same kind (which code, when the thread ran); a stopped one's among all samples
    /// of the same kind (how often a thread is caught stopped like that).
    /// </summary>
    private static SampleSituation[] Against(SampleSituation situation) => situation switch
    {
        SampleSituation.ServingRunning => s_servingRunning,
        SampleSituation.IdleRunning => s_idleRunning,
        SampleSituation.ServingStopped => s_serving,
        _ => s_idle,
    };

    private static readonly SampleSituation[] s_servingRunning = [SampleSituation.ServingRunning];
    private static readonly SampleSituation[] s_idleRunning = [SampleSituation.IdleRunning];
    private static readonly SampleSituation[] s_serving = [SampleSituation.ServingRunning, SampleSituation.ServingStopped];
    private static readonly SampleSituation[] s_idle = [SampleSituation.IdleRunning, SampleSituation.IdleStopped];

    private static int Block(SampleSituation situation, int slots) => (int)situation * slots;

    private static long Sum(long[] counts, SampleSituation[] situations, int slots)
    {
        long sum = 0;
        foreach (var situation in situations)
        {
            foreach (var count in counts.AsSpan(Block(situation, slots), slots))
            {
                sum += count;
            }
        }

        return sum;
    }

    private static long Sum(int[] counts, SampleSituation[] situations, int slots)
    {
        long sum = 0;
        foreach (var situation in situations)
        {
            foreach (var count in counts.AsSpan(Block(situation, slots), slots))
            {
                sum += count;
            }
        }

        return sum;
    }

    private static void Count(Attributor attributor, AnalysisScope scope, in RequestRecord request, int[] counts)
    {
        if (scope.Basis == LatencyBasis.Response)
        {
            attributor.CountSamples(request, RequestPart.Queue, counts);
        }

        attributor.CountSamples(request, RequestPart.Service, counts);
    }
}
