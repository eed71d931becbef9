using Microsoft.Diagnostics.Tracing;

namespace TailDb.Analyzer.Traces;

/// <summary>One concern of the streaming pass: subscribes to the events it needs and keeps its own state.</summary>
internal interface ITraceComputer
{
    void Attach(TraceEventDispatcher source);

    /// <summary>Called once after the last event (or after parsing stopped early).</summary>
    void Complete(double traceEndMSec);
}
