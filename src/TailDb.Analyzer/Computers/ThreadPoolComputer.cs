using Microsoft.Diagnostics.Tracing;
using Microsoft.Diagnostics.Tracing.Parsers.Clr;
using TailDb.Analyzer.Traces;

namespace TailDb.Analyzer.Computers;

/// <summary>Thread-pool starvation: the hill-climbing adjustments the pool makes because work is queued and no thread is free.</summary>
internal sealed class ThreadPoolComputer : ITraceComputer
{
    public List<TimePoint> Starvation { get; } = [];

    public void Attach(TraceEventDispatcher source)
    {
        ArgumentNullException.ThrowIfNull(source);
        source.Clr.ThreadPoolWorkerThreadAdjustmentAdjustment += data =>
        {
            if (data.Reason == ThreadAdjustmentReason.Starvation)
            {
                Starvation.Add(new TimePoint(data.TimeStampRelativeMSec, data.ThreadID, (int)data.NewWorkerThreadCount));
            }
        };
    }

    public void Complete(double traceEndMSec)
    {
    }
}
