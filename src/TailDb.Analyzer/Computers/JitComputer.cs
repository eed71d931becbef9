using Microsoft.Diagnostics.Tracing;
using TailDb.Analyzer.Traces;

namespace TailDb.Analyzer.Computers;

/// <summary>
/// JIT windows: MethodJittingStarted to the same method's MethodLoadVerbose on the same thread.
/// Jitting can nest (a class constructor run while compiling), hence a stack per thread.
/// </summary>
internal sealed class JitComputer : ITraceComputer
{
    private readonly Dictionary<int, Stack<(long MethodId, double Start, int Name)>> _open = [];
    private readonly Dictionary<string, int> _nameIndex = new(StringComparer.Ordinal);

    /// <summary>Tag = index into <see cref="MethodNames"/>.</summary>
    public ChunkedBuffer<TimeWindow> Windows { get; } = new();

    public List<string> MethodNames { get; } = [];

    public void Attach(TraceEventDispatcher source)
    {
        ArgumentNullException.ThrowIfNull(source);
        source.Clr.MethodJittingStarted += data =>
        {
            if (!_open.TryGetValue(data.ThreadID, out var stack))
            {
                stack = new Stack<(long, double, int)>();
                _open.Add(data.ThreadID, stack);
            }

            stack.Push((data.MethodID, data.TimeStampRelativeMSec, Intern(data.MethodNamespace, data.MethodName)));
        };
        source.Clr.MethodLoadVerbose += data =>
        {
            if (!_open.TryGetValue(data.ThreadID, out var stack))
            {
                return;
            }

            // Pop to the matching method: a compile that failed leaves its start behind.
            while (stack.Count > 0)
            {
                var (methodId, start, name) = stack.Pop();
                if (methodId == data.MethodID)
                {
                    Windows.Add(new TimeWindow(start, Math.Max(start, data.TimeStampRelativeMSec), data.ThreadID, name));
                    break;
                }
            }
        };
    }

    public void Complete(double traceEndMSec) => _open.Clear();

    private int Intern(string typeName, string methodName)
    {
        var name = string.Concat(typeName, ".", methodName);
        if (!_nameIndex.TryGetValue(name, out var index))
        {
            index = MethodNames.Count;
            MethodNames.Add(name);
            _nameIndex.Add(name, index);
        }

        return index;
    }
}
