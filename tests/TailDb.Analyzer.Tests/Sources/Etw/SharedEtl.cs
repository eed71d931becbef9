using System.Runtime.CompilerServices;
using TailDb.TestSupport.Skipping;

namespace TailDb.Analyzer.Tests.Sources.Etw;

/// <summary>
/// The real Windows traces and TraceEvent's baselines for them: shared/etl beside the clone (its
/// parent, or a parent of that for a worktree). CI always has it; without it the tests skip with one line.
/// </summary>
internal static class SharedEtl
{
    public static string? Directory { get; } = Find();

    public const string Missing = "shared/etl not found beside the repository (a parent of the clone holds shared/etl in CI): ETW oracle tests skipped";

    public static IEnumerable<string> Traces() =>
        Directory is null
            ? []
            : System.IO.Directory.EnumerateFiles(Directory).Where(f => f.EndsWith(".etl", StringComparison.Ordinal) || f.EndsWith(".etl.zip", StringComparison.Ordinal)).Order(StringComparer.Ordinal);

    public static string Path(string name) => System.IO.Path.Combine(Directory ?? throw new InvalidOperationException(Missing), name);

    private static string? Find()
    {
        DirectoryInfo? root = null;
        for (var dir = new DirectoryInfo(AppContext.BaseDirectory); dir is not null; dir = dir.Parent)
        {
            if (File.Exists(System.IO.Path.Combine(dir.FullName, "TailDb.sln")))
            {
                root = dir;
                break;
            }
        }

        for (var dir = root?.Parent; dir is not null; dir = dir.Parent)
        {
            var candidate = System.IO.Path.Combine(dir.FullName, "shared", "etl");
            if (System.IO.Directory.Exists(candidate))
            {
                return candidate;
            }
        }

        return null;
    }
}

/// <summary>A fact that needs shared/etl; skipped with one line when it is absent.</summary>
public sealed class SharedEtlFactAttribute : FactAttribute
{
    public SharedEtlFactAttribute([CallerMemberName] string member = "", [CallerFilePath] string file = "")
    {
        if (SharedEtl.Directory is null)
        {
            Skip = SharedEtl.Missing;
            DisplayName = SkipNotice.DisplayName(Skip, member, file);
        }
    }
}
