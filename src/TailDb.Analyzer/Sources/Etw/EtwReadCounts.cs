namespace TailDb.Analyzer.Sources.Etw;

/// <summary>
/// What one pass read and what it met but did not read. Everything not raised is counted here, by
/// reason, and the reports say so: the reader never guesses at a part of the format it does not know.
/// </summary>
internal sealed class EtwReadCounts
{
    private readonly Dictionary<string, long> _skipped = [];

    public long Buffers { get; internal set; }

    public long CompressedBuffers { get; internal set; }

    public long EventsRaised { get; internal set; }

    /// <summary>Records the reader did not raise, by reason ("header kind Message", "kernel group 0x15").</summary>
    public IReadOnlyDictionary<string, long> Skipped => _skipped;

    public long SkippedTotal => _skipped.Values.Sum();

    internal void Skip(string reason, long count = 1)
    {
        _skipped[reason] = _skipped.GetValueOrDefault(reason) + count;
    }

    /// <summary>One line for a report, or null when nothing was skipped.</summary>
    public string? Describe() => _skipped.Count == 0
        ? null
        : $"{SkippedTotal:N0} ETW records not read: " + string.Join(", ", _skipped.OrderByDescending(p => p.Value).Select(p => $"{p.Value:N0} {p.Key}"));
}
