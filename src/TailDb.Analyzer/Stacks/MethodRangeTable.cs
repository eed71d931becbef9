using System.Text;

namespace TailDb.Analyzer.Stacks;

/// <summary>
/// Code ranges [start, start + size) with method names, from MethodLoadVerbose during the session
/// and from the rundown (MethodDCEndVerbose) at its end; resolves addresses once, at the end.
/// Precedence follows TraceLog so both readers name the same frames: a jitted method loaded
/// during the session wins (the latest such load when code memory was reused, and each tier's
/// re-JIT is its own range); otherwise the first rundown or unload range that covers the address.
/// </summary>
internal sealed class MethodRangeTable
{
    private readonly List<MethodRange> _ranges = [];
    private MethodRange[]? _sorted;
    private ulong[]? _maxEndUpTo;

    public int Count => _ranges.Count;

    public void AddSessionLoad(ulong start, uint size, string name) =>
        Add(new MethodRange(start, start + size, name, Priority: int.MaxValue / 2 + _ranges.Count));

    public void AddRundown(ulong start, uint size, string name) =>
        Add(new MethodRange(start, start + size, name, Priority: -_ranges.Count));

    /// <summary>The method's name as both readers spell it, from a MethodLoadVerbose-shaped payload's strings.</summary>
    public static string Name(ReadOnlySpan<byte> methodNamespace, ReadOnlySpan<byte> methodName, ReadOnlySpan<byte> signature) =>
        FrameNames.Method(Encoding.Unicode.GetString(methodNamespace), Encoding.Unicode.GetString(methodName), Encoding.Unicode.GetString(signature));

    public bool TryResolve(ulong address, out string name)
    {
        if (_sorted is null)
        {
            _sorted = [.. _ranges.OrderBy(r => r.Start)];
            _maxEndUpTo = new ulong[_sorted.Length];
            ulong maxEnd = 0;
            for (var i = 0; i < _sorted.Length; i++)
            {
                maxEnd = Math.Max(maxEnd, _sorted[i].End);
                _maxEndUpTo[i] = maxEnd;
            }
        }

        // Last range starting at or before the address, then back while earlier ranges could still reach it.
        int lo = 0, hi = _sorted.Length - 1, last = -1;
        while (lo <= hi)
        {
            var mid = (lo + hi) >>> 1;
            if (_sorted[mid].Start <= address)
            {
                last = mid;
                lo = mid + 1;
            }
            else
            {
                hi = mid - 1;
            }
        }

        MethodRange? best = null;
        for (var i = last; i >= 0 && _maxEndUpTo![i] > address; i--)
        {
            var range = _sorted[i];
            if (address < range.End && (best is null || range.Priority > best.Value.Priority))
            {
                best = range;
            }
        }

        name = best?.Name ?? "";
        return best is not null;
    }

    private void Add(MethodRange range)
    {
        _ranges.Add(range);
        _sorted = null;
    }

    private readonly record struct MethodRange(ulong Start, ulong End, string Name, int Priority);
}
