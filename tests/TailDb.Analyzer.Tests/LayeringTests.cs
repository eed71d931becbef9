using System.Text.RegularExpressions;

namespace TailDb.Analyzer.Tests;

/// <summary>
/// The arrows point one way (docs/architecture.md): a project references only projects below it,
/// and an analyzer folder uses only folders before it in the pipeline (sources → model → computers
/// → causes → attribution → pictures and reports → watch → commands). Read from the source text: a
/// folder's <c>using TailDb.Analyzer.X</c>, its fully qualified <c>TailDb.Analyzer.X.</c> names and
/// the short <c>X.Type</c> names C# resolves inside the analyzer's namespace, comments and strings left out.
/// </summary>
public sealed partial class LayeringTests
{
    /// <summary>Lowest first. A new folder must be placed here (the test names it until it is).</summary>
    private static readonly string[] s_folders =
    [
        "Intervals", "Scheduling", "Sources", "Traces", "Stacks", "Computers", "Causes", "Attribution",
        "Buckets", "Pictures", "Export", "Comparison", "Reports", "Findings", "Watch", "Commands",
    ];

    /// <summary>Lowest first: the libraries, then the executables.</summary>
    private static readonly string[] s_projects =
    [
        "TailDb.Cli", "TailDb", "TailDb.Tracing", "TailDb.GcModes", "TailDb.Analyzer", "TailDb.Server", "TailDb.LoadTest",
    ];

    [Fact]
    public void Every_analyzer_folder_uses_only_folders_below_it()
    {
        var analyzer = Path.Combine(Root(), "src", "TailDb.Analyzer");
        var folders = Directory.GetDirectories(analyzer).Select(Path.GetFileName).Where(f => f is not ("bin" or "obj")).ToList();
        Assert.Empty(folders.Except(s_folders));

        var upward = new List<string>();
        foreach (var folder in folders)
        {
            var rank = Array.IndexOf(s_folders, folder);
            foreach (var file in Directory.EnumerateFiles(Path.Combine(analyzer, folder!), "*.cs", SearchOption.AllDirectories))
            {
                foreach (var used in Uses(File.ReadAllText(file)))
                {
                    if (used != folder && Array.IndexOf(s_folders, used) > rank)
                    {
                        upward.Add($"{Path.GetRelativePath(analyzer, file)} uses {used}");
                    }
                }
            }
        }

        Assert.Empty(upward);
    }

    [Fact]
    public void Every_project_references_only_projects_below_it()
    {
        var src = Path.Combine(Root(), "src");
        var upward = new List<string>();
        foreach (var project in Directory.GetDirectories(src).Select(Path.GetFileName))
        {
            var csproj = Path.Combine(src, project!, project + ".csproj");
            if (!File.Exists(csproj))
            {
                continue;
            }

            var rank = Array.IndexOf(s_projects, project);
            Assert.True(rank >= 0, $"{project} has no place in the project order: add it to {nameof(s_projects)}");
            foreach (Match reference in ProjectReference().Matches(File.ReadAllText(csproj)))
            {
                var target = reference.Groups[1].Value;
                if (Array.IndexOf(s_projects, target) >= rank)
                {
                    upward.Add($"{project} references {target}");
                }
            }
        }

        Assert.Empty(upward);
    }

    [Fact]
    public void The_reader_sees_every_way_a_folder_is_named_and_none_in_comments_or_strings()
    {
        const string text = """
            using TailDb.Analyzer.Causes;
            var a = TailDb.Analyzer.Reports.JsonReportWriter.Instance;
            var b = Watch.RingLimits.Default; // Commands.Program
            var c = "Pictures.PictureBuilder";
            /* Export.Speedscope */
            """;
        Assert.Equal(["Causes", "Reports", "Watch"], Uses(text).Order());
    }

    private static HashSet<string> Uses(string source)
    {
        var code = Quoted().Replace(Comment().Replace(source, ""), "\"\"");
        var used = new HashSet<string>(StringComparer.Ordinal);
        foreach (Match m in Qualified().Matches(code))
        {
            used.Add(m.Groups[1].Value);
        }

        foreach (Match m in Short().Matches(code))
        {
            if (s_folders.Contains(m.Groups[1].Value))
            {
                used.Add(m.Groups[1].Value);
            }
        }

        return used;
    }

    private static string Root()
    {
        var root = AppContext.BaseDirectory;
        while (!File.Exists(Path.Combine(root, "TailDb.sln")))
        {
            root = Path.GetDirectoryName(root.TrimEnd(Path.DirectorySeparatorChar))
                ?? throw new InvalidOperationException($"no TailDb.sln above {AppContext.BaseDirectory}");
        }

        return root;
    }

    [GeneratedRegex(@"//[^\n]*|/\*.*?\*/", RegexOptions.Singleline)]
    private static partial Regex Comment();

    [GeneratedRegex(@"@?\$?""(?:[^""\\\n]|\\.)*""")]
    private static partial Regex Quoted();

    [GeneratedRegex(@"\bTailDb\.Analyzer\.([A-Z][A-Za-z]+)")]
    private static partial Regex Qualified();

    [GeneratedRegex(@"(?<![\w.])([A-Z][A-Za-z]+)\.[A-Z]")]
    private static partial Regex Short();

    [GeneratedRegex(@"ProjectReference\s+Include=""[^""]*[\\/]([\w.]+)\.csproj""")]
    private static partial Regex ProjectReference();
}
