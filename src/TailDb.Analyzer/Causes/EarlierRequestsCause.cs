using TailDb.Analyzer.Intervals;

namespace TailDb.Analyzer.Causes;

/// <summary>
/// When requests carry their arrival, a request that arrived while an earlier request was still
/// being served on its thread waited for it: that wait is a cause of its own, in the queue part
/// (a request's own service is in the same windows).
/// </summary>
internal sealed class EarlierRequestsCause(Dictionary<int, List<(double Start, double Stop)>> servicesByThread)
    : ThreadWindowsCause("earlier requests on the same thread (queued behind them)", servicesByThread)
{
    public override CauseKind Kind => CauseKind.EarlierRequests;

    protected override RequestPart? Only => RequestPart.Queue;

    public static IEnumerable<ICause> From(CauseInputs inputs)
    {
        ArgumentNullException.ThrowIfNull(inputs);
        if (!inputs.Set.Requests.WithArrival)
        {
            return [];
        }

        var requests = inputs.Set.Requests.Requests;
        var byThread = new Dictionary<int, List<(double Start, double Stop)>>();
        for (var i = 0; i < requests.Count; i++)
        {
            ref var request = ref requests[i];
            if (request.IsPaired)
            {
                Windows.Group(byThread, request.ThreadId).Add((request.StartMSec, request.StopMSec));
            }
        }

        return byThread.Count == 0 ? [] : [new EarlierRequestsCause(byThread)];
    }
}
