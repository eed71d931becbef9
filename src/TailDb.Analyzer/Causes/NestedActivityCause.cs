using TailDb.Analyzer.Computers;

namespace TailDb.Analyzer.Causes;

/// <summary>
/// A nested activity (FileRead, Fsync, a client's PoolWait, Attempt, Retry) inside the service of the
/// request that owns it; in a request's queue, the same-thread activities of cross-thread requests
/// that held its thread (a load thread waiting for a pooled connection holds the requests behind it).
/// </summary>
internal sealed class NestedActivityCause(string activity, int activityIndex, NestedActivityIndex index)
    : CauseBase($"{activity} (nested activity)")
{
    public override CauseKind Kind => CauseKind.NestedActivity;

    public override CauseScope Scope => CauseScope.Request;

    public override double Measure(in RequestRecord request, int requestIndex, RequestPart part, double from, double to) =>
        part == RequestPart.Service ? index.Overlap(requestIndex, from, to, activityIndex) : index.Held(activityIndex, request.ThreadId, from, to);

    /// <summary>One cause per nested activity some request owns, in the order they first appear.</summary>
    public static IEnumerable<ICause> From(CauseInputs inputs)
    {
        ArgumentNullException.ThrowIfNull(inputs);
        var requests = inputs.Set.Requests;
        var index = new NestedActivityIndex(requests);
        foreach (var activity in index.Activities)
        {
            yield return new NestedActivityCause(requests.Activities[activity].Name, activity, index);
        }
    }
}
