using TailDb.Analyzer.Causes;
using TailDb.Analyzer.Computers;

namespace TailDb.Analyzer.Attribution;

/// <summary>
/// Names a slow request's cause through the backlog in front of it. Under open-loop load a pause,
/// a lock or a stalled handler holds one request, and the requests due behind it on that thread
/// queue; those that arrive after the cause is over still wait for the backlog to drain. For them
/// "earlier requests on the same thread" says where the time went, not why: this follows the
/// requests in front, one at a time, to the first one held by something else, and names that
/// ("gen2 GC pauses, through the earlier requests it held"), when that cause shows the request was
/// held (an event-based cause, or samples of a stopped thread). The chain is followed at most
/// <see cref="MaxHops"/> requests back and each request is named once.
/// </summary>
internal sealed class BacklogBlame(ComputerSet set, AnalysisScope scope, Attributor attributor, RequestBlame blame)
{
    /// <summary>A backlog longer than this is reported as queueing behind earlier requests, unexplained.</summary>
    internal const int MaxHops = 4096;

    internal const string Through = ", through the earlier requests it held";

    private const int MaxLookBack = 100_000;

    private readonly Dictionary<int, CauseOverlap?> _named = [];

    /// <param name="whole">The request's overlap with each cause over its whole window (queue and service).</param>
    public CauseOverlap? Name(int index, double[] whole)
    {
        var named = blame.Name(set.Requests.Requests[index], whole);
        if (named is not { Kind: CauseKind.EarlierRequests })
        {
            return named;
        }

        // Only a cause that shows the request in front was held: a sample-based "app code" there is
        // as likely the OS preempting the thread as work, and would spread to the whole backlog.
        var root = Root(index);
        return root is null || !attributor.ShowsAThreadHeld(root.Kind, root.Cause) ? named : named with { Cause = root.Cause + Through, Kind = root.Kind };
    }

    /// <summary>The first cause other than earlier requests along the chain of requests in front of <paramref name="index"/>.</summary>
    private CauseOverlap? Root(int index)
    {
        var chain = new List<int>();
        CauseOverlap? root = null;
        for (var at = InFront(index); at >= 0 && chain.Count < MaxHops; at = InFront(at))
        {
            if (_named.TryGetValue(at, out var known))
            {
                root = known;
                break;
            }

            chain.Add(at);
            var own = Own(at);
            if (own is not { Kind: CauseKind.EarlierRequests })
            {
                root = own;
                break;
            }
        }

        // Every request walked through has the same root (or none).
        foreach (var walked in chain)
        {
            _named[walked] = root;
        }

        return root;
    }

    /// <summary>What <see cref="RequestBlame"/> names for one request on its own.</summary>
    private CauseOverlap? Own(int index)
    {
        ref var request = ref set.Requests.Requests[index];
        return blame.Name(request, SlowestAnalysis.MeasureParts(attributor, scope, request, index).Whole);
    }

    /// <summary>
    /// The request served just before <paramref name="index"/> on its thread, or -1. Requests are
    /// recorded in the order they started, so it is the nearest earlier one on the same thread;
    /// looking back at most <see cref="MaxLookBack"/> records keeps a thread with no earlier
    /// request from costing a scan of the whole trace.
    /// </summary>
    private int InFront(int index)
    {
        var requests = set.Requests.Requests;
        var thread = requests[index].ThreadId;
        for (var i = index - 1; i >= 0 && index - i <= MaxLookBack; i--)
        {
            ref var candidate = ref requests[i];
            if (candidate.ThreadId == thread && candidate.IsPaired)
            {
                return i;
            }
        }

        return -1;
    }
}
