using TailDb.Analyzer.Sources.NetTrace;


namespace TailDb.Analyzer.Traces;

/// <summary>
/// Walks a .nettrace's object and block framing (types, sizes, tags; no event decoding) before
/// TraceEvent parses it. Why: TraceEvent 3.2.5's FastSerializationObjectParser.ReadBlockHeader
/// trusts a corrupt length enough to overflow the stack (found by our byte-mutation tests), and a
/// stack overflow kills the process: no catch can turn it into a one-line error. A file whose
/// framing is corrupt is refused here; one that merely ends early is left to TraceEvent, which
/// reads what is there. Formats this walker does not know (nettrace V6) are left to TraceEvent.
/// </summary>
internal static class TraceStructure
{
    /// <returns>Why the trace looks cut short, or null if it ends with its end-of-stream marker.</returns>
    public static string? Check(string path)
    {
        try
        {
            using var stream = new NetTraceObjectStream(path);
            stream.ReadStreamHeader();
            while (stream.TryBeginObject(out var typeName, out _))
            {
                if (typeName == "Trace")
                {
                    stream.ReadTraceObjectFields();
                }
                else if (typeName == "MetadataBlock")
                {
                    CheckMetadata(stream.ReadBlock(typeName, out var offset), offset);
                }
                else
                {
                    stream.ReadBlock(typeName, out _);
                }
            }

            return stream.EndedWithMarker ? null : $"the file ends at byte {stream.Length:N0} without the end-of-stream marker (the recording was cut short)";
        }
        catch (TraceFormatException e) when (e.Problem == TraceFormatProblem.Truncated)
        {
            return e.Message;
        }
        catch (TraceFormatException e) when (e.Problem == TraceFormatProblem.NewerFormat)
        {
            return null; // A newer format: TraceEvent decides.
        }
        catch (TraceFormatException e)
        {
            throw new AnalyzerException(ExitCode.BadTrace, $"{path} is not a readable trace: {TracePass.OneLine(e)}", e);
        }
    }

    /// <summary>Refuses a metadata record whose field counts cannot fit (TraceEvent would allocate what they claim).</summary>
    private static void CheckMetadata(ReadOnlySpan<byte> block, long offset)
    {
        var events = new EventBlockReader(block);
        while (events.MoveNext())
        {
            if (MetadataFieldCounts.Problem(events.Payload) is { } lie)
            {
                throw new TraceFormatException(TraceFormatProblem.Corrupt, $"corrupt metadata record in the MetadataBlock at byte {offset}: it {lie}");
            }
        }
    }
}
