using System.Buffers.Binary;
using TailDb.Analyzer.Sources.NetTrace;

namespace TailDb.Analyzer.Traces;

/// <summary>
/// The trace's clock, from its Trace object: event times are QPC ticks (Stopwatch ticks: the same
/// monotonic clock as <c>Stopwatch.GetTimestamp()</c> in the traced process, on every OS), and
/// TraceEvent's relative milliseconds are (ticks - sync time) * 1000 / frequency. A payload field
/// holding a Stopwatch timestamp (a request's arrival) converts the same way, with no guesswork.
/// </summary>
internal sealed record TraceClock(long SyncTimeQpc, long QpcFrequency)
{
    public double RelativeMSec(long qpc) => (qpc - SyncTimeQpc) * 1000.0 / QpcFrequency;

    /// <summary>The clock of a .nettrace, or null when the file has none we can read (an .etl, a damaged header).</summary>
    public static TraceClock? Read(string path, TraceKind kind)
    {
        if (kind != TraceKind.NetTrace)
        {
            return null;
        }

        try
        {
            using var stream = new NetTraceObjectStream(path);
            stream.ReadStreamHeader();
            if (!stream.TryBeginObject(out var typeName, out var version) || typeName != "Trace" || version is < 4 or > 5)
            {
                return null;
            }

            var fields = stream.ReadTraceObjectFields();
            var clock = new TraceClock(BinaryPrimitives.ReadInt64LittleEndian(fields[16..]), BinaryPrimitives.ReadInt64LittleEndian(fields[24..]));
            return clock.QpcFrequency > 0 ? clock : null;
        }
        catch (TraceFormatException)
        {
            return null;
        }
    }
}
