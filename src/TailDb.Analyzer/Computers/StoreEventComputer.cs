using Microsoft.Diagnostics.Tracing;
using TailDb.Analyzer.Traces;
using TailDb.Tracing;

namespace TailDb.Analyzer.Computers;

/// <summary>
/// Whether the trace holds the store's per-request events: a load test's or server's trace
/// recorded at --trace-level requests has the outer requests and the store's upkeep but none of
/// the store's Get/Put/Delete, FileRead or Fsync, and the report says what it therefore cannot name.
/// </summary>
internal sealed class StoreEventComputer : ITraceComputer
{
    /// <summary>The store's Get/Put/Delete Start events.</summary>
    public long RequestStarts { get; private set; }

    /// <summary>The store's FileRead and Fsync Start events.</summary>
    public long IoStarts { get; private set; }

    public bool Recorded => RequestStarts + IoStarts > 0;

    public void Attach(TraceEventDispatcher source)
    {
        source.OnProvider(TailDbEventContract.ProviderName, data =>
        {
            switch ((int)data.ID)
            {
                case TailDbEventContract.EventIds.GetStart or TailDbEventContract.EventIds.PutStart or TailDbEventContract.EventIds.DeleteStart:
                    RequestStarts++;
                    break;
                case TailDbEventContract.EventIds.FileReadStart or TailDbEventContract.EventIds.FsyncStart:
                    IoStarts++;
                    break;
            }
        });
    }

    public void Complete(double traceEndMSec)
    {
    }
}
