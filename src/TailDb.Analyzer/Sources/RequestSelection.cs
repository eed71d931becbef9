using TailDb.Analyzer.Sources.Etw;
using TailDb.Tracing;

namespace TailDb.Analyzer.Sources;

/// <summary>Which EventSource Start/Stop activities count as requests.</summary>
/// <param name="ArrivalField">The Start payload field that holds a request's arrival as a Stopwatch
/// timestamp (the response-time convention of <see cref="LoadTestEventContract"/>); requests without it
/// have no queue part.</param>
internal sealed record RequestSelection(string Provider, IReadOnlyList<string> Activities, string ArrivalField = LoadTestEventContract.Fields.ArrivalTimestamp)
{
    public static RequestSelection TailDb { get; } = new(TailDbEventContract.ProviderName, TailDbEventContract.Activities.Requests);

    /// <summary>
    /// What the user gets without --provider/--activity: the load test's Request activity in a load
    /// test's trace, TailDb's Get/Put/Delete otherwise (Computers' RequestSources decides).
    /// </summary>
    public static RequestSelection Default { get; } = TailDb with { Auto = true };

    /// <summary>
    /// The Stop payload field that holds the moment the app read the request's end, as a Stopwatch
    /// timestamp (the load test's <see cref="LoadTestEventContract.Fields.StopTimestamp"/>); where a Stop
    /// carries it, it ends the request in place of the event's own, slightly later, time.
    /// </summary>
    public string StopField { get; init; } = LoadTestEventContract.Fields.StopTimestamp;

    /// <summary>In a machine-wide ETW trace, whose requests (--pid/--process); a .nettrace holds one process.</summary>
    public ProcessChoice Process { get; init; } = ProcessChoice.Default;

    /// <summary>True when the trace decides between <see cref="LoadTest"/> and <see cref="TailDb"/>.</summary>
    public bool Auto { get; init; }

    /// <summary>The load test's own Request activity: the store calls, each with its arrival (intended start).</summary>
    public static RequestSelection LoadTest { get; } = new(LoadTestEventContract.ProviderName, [LoadTestEventContract.Activities.Request]);

    /// <summary>A TailDb server's Command activity, each with its arrival (the moment its bytes were read).</summary>
    public static RequestSelection Server { get; } = new(ServerEventContract.ProviderName, [ServerEventContract.CommandActivity]);

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
