using Microsoft.Diagnostics.Tracing;

namespace TailDb.Analyzer.Traces;

/// <summary>How a computer takes one provider's events from a pass.</summary>
internal static class ProviderEvents
{
    /// <summary>
    /// Only <paramref name="provider"/>'s events (any case) reach <paramref name="callback"/>: every
    /// other provider is rejected at its first event, since dispatching all of them to a dynamic
    /// callback costs a measurable share of the pass on a big trace.
    /// </summary>
    public static void OnProvider(this TraceEventDispatcher source, string provider, Action<TraceEvent> callback)
    {
        ArgumentNullException.ThrowIfNull(source);
        source.Dynamic.AddCallbackForProviderEvents(
            (name, _) => string.Equals(name, provider, StringComparison.OrdinalIgnoreCase)
                ? EventFilterResponse.AcceptEvent
                : EventFilterResponse.RejectProvider,
            callback);
    }
}
