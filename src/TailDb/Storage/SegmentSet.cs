namespace TailDb.Storage;

/// <summary>
/// An immutable snapshot of the open segments: readers index it without a lock, the writer and
/// the compactor publish a new one (copy-on-write; changes are rare).
/// </summary>
internal sealed class SegmentSet
{
    private readonly Segment?[] _byNumber;

    private SegmentSet(Segment?[] byNumber, Segment[] ordered)
    {
        _byNumber = byNumber;
        Ordered = ordered;
    }

    public static SegmentSet Empty { get; } = new([], []);

    /// <summary>Replay order: (id, generation).</summary>
    public IReadOnlyList<Segment> Ordered { get; }

    public Segment? Find(int number) => (uint)number < (uint)_byNumber.Length ? _byNumber[number] : null;

    /// <summary>Charges a superseded record to its segment's dead bytes (no-op for "no previous record").</summary>
    public void Supersede(RecordLocation previous) => Find(previous.SegmentNumber)?.AddDead(previous.RecordSize);

    public SegmentSet With(IEnumerable<Segment> added, IEnumerable<Segment> removed)
    {
        var list = Ordered.Except(removed).Concat(added).OrderBy(s => s.Id).ThenBy(s => s.Generation).ToArray();
        int max = list.Length == 0 ? 0 : list.Max(s => s.Number);
        var byNumber = new Segment?[max + 1];
        foreach (Segment s in list)
        {
            byNumber[s.Number] = s;
        }

        return new SegmentSet(byNumber, list);
    }
}
