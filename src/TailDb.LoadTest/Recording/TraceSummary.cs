using Microsoft.Diagnostics.Tracing;
using Microsoft.Diagnostics.Tracing.Parsers;
using Microsoft.Diagnostics.Tracing.EventPipe;

using TailDb.Cli;
using TailDb.LoadTest.Reporting;
using TailDb.Tracing;
using TailDb.Tracing.Recording;

namespace TailDb.LoadTest.Recording;

/// <summary>
/// What a recorded trace holds, counted in one streaming pass (no TraceLog/ETLX conversion, no
/// payload parsing): enough to tell the user the trace is usable and whether events were lost.
/// </summary>
/// <param name="RequestStarts">Start events of the outermost requests: the load test's Request or the server's Command.</param>
/// <param name="StoreStarts">Start events of the store's activities (Get/Put/Delete, FileRead, Fsync, upkeep): few at --trace-level requests (upkeep only).</param>
public sealed record TraceSummary(string Path, long Bytes, long Events, int EventsLost, long RequestStarts, long RequestStops, long StoreStarts, long GcStarts, long Samples)
{
    public static TraceSummary Read(string path)
    {
        long events = 0, starts = 0, stops = 0, storeStarts = 0, gcs = 0, samples = 0;
        using var source = new EventPipeEventSource(path);
        source.AllEvents += _ => events++;
        source.Clr.GCStart += _ => gcs++;
        new SampleProfilerTraceEventParser(source).ThreadSample += _ => samples++;
        // TailDb's events are described by the metadata EventPipe writes, which the dynamic parser reads.
        source.Dynamic.All += e =>
        {
            if (e.ProviderName == RecordingProviders.TailDb)
            {
                if (e.Opcode == TraceEventOpcode.Start)
                {
                    storeStarts++;
                }
            }
            else if ((e.ProviderName == LoadTestEventContract.ProviderName && (int)e.ID is LoadTestEventContract.EventIds.RequestStart or LoadTestEventContract.EventIds.RequestStop)
                || e.ProviderName == RecordingProviders.Server)
            {
                if (e.Opcode == TraceEventOpcode.Start)
                {
                    starts++;
                }
                else if (e.Opcode == TraceEventOpcode.Stop)
                {
                    stops++;
                }
            }
        };
        source.Process();
        return new TraceSummary(path, new FileInfo(path).Length, events, source.EventsLost, starts, stops, storeStarts, gcs, samples);
    }

    public string Describe() =>
        $"{Path}: {Bytes / 1048576.0:0.0} MiB, {Counted.Of(Events, "event")}, {EventsLost:N0} lost; " +
        $"{Counted.Of(RequestStarts, "request start")} / {Counted.Of(RequestStops, "stop")}, {Counted.Of(StoreStarts, "store start")}, {Counted.Of(GcStarts, "GC")}, {Counted.Of(Samples, "CPU sample")}";
}
