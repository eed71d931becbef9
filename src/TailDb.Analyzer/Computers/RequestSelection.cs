using TailDb.Diagnostics;

namespace TailDb.Analyzer.Computers;

/// <summary>Which EventSource Start/Stop activities count as requests.</summary>
internal sealed record RequestSelection(string Provider, IReadOnlyList<string> Activities)
{
    public static RequestSelection TailDb { get; } = new(TailDbEventContract.ProviderName, TailDbEventContract.Activities.Requests);

    /// <summary>Accepts "Request" or "RequestStart"/"RequestStop" and ignores case, as TraceEvent's task names vary.</summary>
    public bool IsRequest(string taskName)
    {
        ArgumentNullException.ThrowIfNull(taskName);
        foreach (var activity in Activities)
        {
            if (string.Equals(Stem(activity), Stem(taskName), StringComparison.OrdinalIgnoreCase))
            {
                return true;
            }
        }

        return false;
    }

    public static string Stem(string name)
    {
        ArgumentNullException.ThrowIfNull(name);
        if (name.EndsWith("Start", StringComparison.OrdinalIgnoreCase))
        {
            return name[..^5];
        }

        return name.EndsWith("Stop", StringComparison.OrdinalIgnoreCase) ? name[..^4] : name;
    }
}
