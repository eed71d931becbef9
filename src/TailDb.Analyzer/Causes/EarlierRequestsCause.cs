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
        var byThread = inputs.ServicesByThread;
        return byThread.Count == 0 ? [] : [new EarlierRequestsCause(byThread)];
    }
}
