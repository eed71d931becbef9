using TailDb.Analyzer.Intervals;

namespace TailDb.Analyzer.Causes;

/// <summary>Exceptions thrown on the request's thread while it waited or ran.</summary>
internal sealed class ExceptionsCause(Dictionary<int, List<double>> timesByThread) : ThreadEventsCause("exceptions thrown", timesByThread)
{
    public override CauseKind Kind => CauseKind.Exceptions;

    public static IEnumerable<ICause> From(CauseInputs inputs)
    {
        ArgumentNullException.ThrowIfNull(inputs);
        var thrown = inputs.Set.Exceptions.Thrown;
        if (thrown.Count == 0)
        {
            return [];
        }

        var byThread = new Dictionary<int, List<double>>();
        for (var i = 0; i < thrown.Count; i++)
        {
            Windows.Group(byThread, thrown[i].ThreadId).Add(thrown[i].TimeMSec);
        }

        return [new ExceptionsCause(byThread)];
    }
}
