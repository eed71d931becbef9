using System.Globalization;
using Microsoft.Diagnostics.Tracing;
using TailDb.Analyzer.Computers;
using TailDb.Analyzer.Sources;

namespace TailDb.Analyzer.Watch;

/// <summary>
/// Every payload field of the trigger request's Start event, strings included (a report's request
/// rows carry numeric fields only): ASP.NET Core's RequestStart names the path there. Read from the
/// capture with TraceEvent's EventPipeEventSource, matched by activity and start time.
/// </summary>
internal static class TriggerPayload
{
    public static string? Describe(string capturePath, RequestSelection selection, string activity, double startMSec)
    {
        ArgumentNullException.ThrowIfNull(selection);
        string? found = null;
        using var source = new EventPipeEventSource(capturePath);
        source.Dynamic.All += data =>
        {
            if (found is not null || data.Opcode != TraceEventOpcode.Start
                || !string.Equals(data.ProviderName, selection.Provider, StringComparison.OrdinalIgnoreCase)
                || !string.Equals(RequestSelection.Stem(data.TaskName is { Length: > 0 } t ? t : data.EventName), activity, StringComparison.OrdinalIgnoreCase)
                || Math.Abs(data.TimeStampRelativeMSec - startMSec) > 0.01)
            {
                return;
            }

            var fields = new List<string>();
            for (var i = 0; i < data.PayloadNames.Length; i++)
            {
                fields.Add($"{data.PayloadNames[i]}={Convert.ToString(data.PayloadValue(i), CultureInfo.InvariantCulture)}");
            }

            found = string.Join(" ", fields);
        };
        source.Process();
        return found;
    }
}
