namespace TailDb.LoadTest.Scenarios;

/// <summary>One side of a story (one run, or the median of a mode's repeats): its figures and verdict.</summary>
/// <param name="Value">The story's own figure for this side as a number (a share 0..1, a correlation, a ratio).</param>
/// <param name="Figure">The same, spelled for the table ("31%", "0.62").</param>
/// <param name="VerdictKind">The kind of cause the analyzer's verdict names; null when it names none.</param>
/// <param name="Verdict">What the analyzer names for the slow set, short: cause and share.</param>
/// <param name="GcPauseMilliseconds">Every GC pause of the measured phase together (the server's, for a networked side): a p99
/// longer than this was not made by GC alone.</param>
public sealed record StoryRow(
    string Side, long Requests, long P50Nanoseconds, long P99Nanoseconds, long P999Nanoseconds, double Value, string Figure,
    TailDb.Analyzer.Causes.CauseKind? VerdictKind, string Verdict, double GcPauseMilliseconds = 0);

/// <summary>
/// What a story run found: its rows, the name of its figure, whether the direction the story
/// predicts held (and in what words), and anything the reader must know about this machine.
/// </summary>
/// <param name="Shown">The direction held on this run; false prints why instead of claiming it.</param>
/// <param name="Finding">The one-line reading of the table: what moved, or what did not and why.</param>
public sealed record StoryOutcome(string Name, string FigureName, IReadOnlyList<StoryRow> Rows, bool Shown, string Finding)
{
    /// <summary>Lines printed under the table (per-shard attributions, the buckets table, caveats).</summary>
    public IReadOnlyList<string> Notes { get; init; } = [];

    /// <summary>Extra tables printed under the main one, each a header row and its rows.</summary>
    public IReadOnlyList<List<string[]>> Tables { get; init; } = [];
}
