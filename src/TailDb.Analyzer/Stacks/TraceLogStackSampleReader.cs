using Microsoft.Diagnostics.Tracing;
using Microsoft.Diagnostics.Tracing.Etlx;
using Microsoft.Diagnostics.Tracing.EventPipe;
using TailDb.Analyzer.Sources.NetTrace;

namespace TailDb.Analyzer.Stacks;

/// <summary>
/// The oracle: TraceEvent's own route to stacks. TraceLog first converts the whole .nettrace to an
/// ETLX file (every event copied, every frame interned; several times the trace's size on disk),
/// then resolves each sample's call stack. Correct and simple, too slow for `slowest` on big
/// traces (docs/stacks.md), so it serves tests and `--stack-reader tracelog` cross-checks.
/// </summary>
public sealed class TraceLogStackSampleReader : IStackSampleReader
{
    public StackSampleSet Read(string nettracePath, CancellationToken cancellationToken = default)
    {
        var etlxPath = Path.Combine(Path.GetTempPath(), $"taildb-{Guid.NewGuid():N}.etlx");
        try
        {
            TraceLog.CreateFromEventPipeDataFile(nettracePath, etlxPath);
            cancellationToken.ThrowIfCancellationRequested();
            using var log = new TraceLog(etlxPath);
            return ReadSamples(log, cancellationToken);
        }
        catch (Exception e) when (e is FormatException or EndOfStreamException or InvalidDataException or FileNotFoundException or DirectoryNotFoundException or UnauthorizedAccessException)
        {
            // TraceEvent's parser throws FormatException ("Read past end of stream") for a cut or
            // killed recording: both are the user's input, not our bug.
            throw new TraceFormatException(TraceFormatProblem.Unreadable, $"{nettracePath}: TraceEvent cannot read the trace: {e.Message.ReplaceLineEndings(" ")}", e);
        }
        finally
        {
            File.Delete(etlxPath);
        }
    }

    private static StackSampleSet ReadSamples(TraceLog log, CancellationToken cancellationToken)
    {
        var interner = new StackInterner();
        var samples = new List<StackSample>();
        var idsByCallStack = new Dictionary<CallStackIndex, int>();
        var unresolved = new HashSet<ulong>();
        var frames = new List<string>();

        var source = log.Events.GetSource();
        var parser = new SampleProfilerTraceEventParser(source);
        parser.ThreadSample += data =>
        {
            if (samples.Count % 4096 == 0 && cancellationToken.IsCancellationRequested)
            {
                source.StopProcessing();
                return;
            }

            var callStack = data.CallStack();
            var callStackIndex = callStack?.CallStackIndex ?? CallStackIndex.Invalid;
            if (!idsByCallStack.TryGetValue(callStackIndex, out var stackId))
            {
                frames.Clear();
                for (var frame = callStack; frame is not null; frame = frame.Caller)
                {
                    var name = frame.CodeAddress.FullMethodName;
                    if (string.IsNullOrEmpty(name))
                    {
                        name = FrameNames.Unresolved(frame.CodeAddress.Address);
                        unresolved.Add(frame.CodeAddress.Address);
                    }

                    frames.Add(interner.Name(name));
                }

                stackId = interner.Intern([.. frames]);
                idsByCallStack.Add(callStackIndex, stackId);
            }

            samples.Add(new StackSample(data.TimeStampRelativeMSec, data.ThreadID, stackId, data.Type == ClrThreadSampleType.Managed));
        };
        source.Process();
        cancellationToken.ThrowIfCancellationRequested();

        // TraceLog already yields events in time order; a stable sort keeps that true if it ever does not.
        var ordered = samples.OrderBy(s => s.TimeRelativeMSec).ToList();
        return new StackSampleSet(ordered, interner.Stacks, unresolved.Count);
    }
}
