using System.Text.RegularExpressions;

namespace TailDb.Benchmarks.Compare.Results;

/// <summary>
/// Rounds: a benchmark class may repeat its rows with a parameter named <c>Round</c> (1..N) that
/// its code never reads (tests/TailDb.Benchmarks: GetHitBenchmarks.Round). BenchmarkDotNet runs
/// cases in the order parameters, job, method, so every method's round 1 runs before any method's
/// round 2: each row's processes are spread over the run instead of back to back, and a slow spell
/// of a shared machine falls on the rows alike rather than on whichever row ran then. The reader
/// pools a row's rounds into one result named without the parameter, so goals and the committed
/// baseline see one row.
/// </summary>
public static partial class ProcessRounds
{
    /// <summary>A FullName ("M(Events: False, Round: 2)") or display name ("M(Events=False, Round=2)")
    /// without its round ("M(Events: False)"; "M(Round: 2)" becomes "M").</summary>
    public static string WithoutRound(string name) => RoundParameter().Replace(name, "");

    /// <summary>The results with each row's rounds pooled, in the order rows first appear: their
    /// measurements and process medians concatenated, their allocation the largest any round measured.</summary>
    public static IReadOnlyList<BenchmarkResult> Pool(IEnumerable<BenchmarkResult> results)
    {
        var pooled = new List<BenchmarkResult>();
        var index = new Dictionary<string, int>(StringComparer.Ordinal);
        foreach (var result in results)
        {
            var id = WithoutRound(result.Id);
            var row = result with { Id = id, DisplayName = WithoutRound(result.DisplayName) };
            if (!index.TryGetValue(id, out var at))
            {
                index[id] = pooled.Count;
                pooled.Add(row);
                continue;
            }

            var first = pooled[at];
            pooled[at] = first with
            {
                NanosecondsPerOperation = [.. first.NanosecondsPerOperation, .. row.NanosecondsPerOperation],
                ProcessMedians = [.. first.ProcessMedians, .. row.ProcessMedians],
                AllocatedBytesPerOperation = Max(first.AllocatedBytesPerOperation, row.AllocatedBytesPerOperation),
            };
        }

        return pooled;
    }

    private static long? Max(long? a, long? b) => a is null ? b : b is null ? a : Math.Max(a.Value, b.Value);

    // A name holds one round: the only parameter (its parentheses go too), the first, or a later one.
    [GeneratedRegex(@"\(Round[:=] ?\d+\)|(?<=\()Round[:=] ?\d+, |, Round[:=] ?\d+(?=[,)])")]
    private static partial Regex RoundParameter();
}
