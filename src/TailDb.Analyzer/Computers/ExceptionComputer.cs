using Microsoft.Diagnostics.Tracing;
using TailDb.Analyzer.Traces;

namespace TailDb.Analyzer.Computers;

/// <summary>First-chance exceptions, per thread: each one costs a stack walk, often milliseconds.</summary>
internal sealed class ExceptionComputer : ITraceComputer
{
    private readonly Dictionary<string, int> _typeIndex = new(StringComparer.Ordinal);

    /// <summary>Tag = index into <see cref="TypeNames"/>.</summary>
    public List<TimePoint> Thrown { get; } = [];

    public List<string> TypeNames { get; } = [];

    public void Attach(TraceEventDispatcher source)
    {
        ArgumentNullException.ThrowIfNull(source);
        source.Clr.ExceptionStart += data =>
        {
            var type = data.ExceptionType ?? "?";
            if (!_typeIndex.TryGetValue(type, out var index))
            {
                index = TypeNames.Count;
                TypeNames.Add(type);
                _typeIndex.Add(type, index);
            }

            Thrown.Add(new TimePoint(data.TimeStampRelativeMSec, data.ThreadID, index));
        };
    }

    public void Complete(double traceEndMSec)
    {
    }
}
