using TailDb.Analyzer.Attribution;
using TailDb.Analyzer.Comparison;
using TailDb.Analyzer.Computers;
using TailDb.Analyzer.Pictures;
using TailDb.Analyzer.Sources;
using TailDb.Analyzer.Stacks;

namespace TailDb.Analyzer.Reports;

/// <summary>One traced run to report on: its label (a GC mode's name) and its trace, or null when the run left none.</summary>
public sealed record ModeTrace(string Label, string? TracePath);

/// <summary>What <see cref="ModeReports.Write"/> wrote for one mode.</summary>
/// <param name="Page">The mode's slowest page (a full path), or null when its trace could not be analyzed.</param>
/// <param name="Problem">Why there is no page (no trace, unreadable, no requests); null when there is one.</param>
/// <param name="Truncation">What the trace lacks when it ended early (the page covers what was read).</param>
public sealed record ModePage(string Label, string? Page, string? Problem, string? Truncation);

/// <param name="ComparisonPage">The page comparing every mode (a full path), linking each mode's page.</param>
public sealed record ModeReportPages(string ComparisonPage, IReadOnlyList<ModePage> Modes);

/// <summary>
/// The analyzer's public pipeline for the load test's --report DIR: each trace's `slowest` HTML page
/// (the analysis and page `slowest TRACE --format html` writes, with its defaults), and one page
/// comparing every mode. The load test calls this in its harness process, after every worker has
/// exited, so no analysis runs beside a measurement.
/// </summary>
public static class ModeReports
{
    /// <summary>The comparison page's file name in the directory.</summary>
    public const string ComparisonFileName = "index.html";

    /// <summary>How many slow requests each mode's page lists (slowest's default --top).</summary>
    private const int Top = 10;

    /// <summary>Writes DIR/LABEL.html for every analyzable trace and DIR/index.html; a trace that cannot be analyzed
    /// is named on the comparison page with its problem, not thrown.</summary>
    /// <exception cref="IOException">The directory cannot be created or written.</exception>
    /// <exception cref="UnauthorizedAccessException">The directory is not ours to write.</exception>
    public static ModeReportPages Write(IReadOnlyList<ModeTrace> modes, string directory, TextWriter? progress = null)
    {
        ArgumentNullException.ThrowIfNull(modes);
        ArgumentException.ThrowIfNullOrWhiteSpace(directory);
        Directory.CreateDirectory(directory);
        var analyzed = new List<AnalyzedMode>();
        var timelines = new Dictionary<string, TimelinePicture>(StringComparer.Ordinal);
        var pages = new List<ModePage>();
        var names = new HashSet<string>(StringComparer.OrdinalIgnoreCase);
        foreach (var mode in modes)
        {
            progress?.WriteLine($"report: analyzing {mode.Label}");
            var (result, page) = WriteModePage(mode, directory, UniqueFileName(mode.Label, names), timelines);
            analyzed.Add(result);
            pages.Add(page);
        }

        var comparison = Path.GetFullPath(Path.Combine(directory, ComparisonFileName));
        var report = ModeComparisonBuilder.Build(analyzed);
        WritePage(comparison, o => new ModeComparisonHtmlWriter(timelines).Write(report, o));
        return new ModeReportPages(comparison, pages);
    }

    /// <summary>"server-nodatas" stays itself; "my mode/1" becomes "my-mode-1": a label as a file name in any OS.</summary>
    public static string FileNameFor(string label)
    {
        ArgumentNullException.ThrowIfNull(label);
        var invalid = Path.GetInvalidFileNameChars();
        var name = new string(label.Select(c => invalid.Contains(c) || char.IsWhiteSpace(c) || c == '#' || c == '?' ? '-' : c).ToArray()).Trim('.', '-');
        return (name.Length == 0 ? "mode" : name.Equals("index", StringComparison.OrdinalIgnoreCase) ? "mode-" + name : name) + ".html";
    }

    /// <summary>Two labels that spell alike as file names ("a/b", "a-b") get "a-b.html" and "a-b-2.html".</summary>
    private static string UniqueFileName(string label, HashSet<string> taken)
    {
        var name = FileNameFor(label);
        var stem = name[..^".html".Length];
        for (var i = 2; !taken.Add(name); i++)
        {
            name = $"{stem}-{i}.html";
        }

        return name;
    }

    private static (AnalyzedMode Result, ModePage Page) WriteModePage(ModeTrace mode, string directory, string fileName, Dictionary<string, TimelinePicture> timelines)
    {
        if (mode.TracePath is null)
        {
            const string none = "the run left no trace";
            return (new AnalyzedMode(mode.Label, null, null, null, none), new ModePage(mode.Label, null, none, null));
        }

        PictureData? pictures = null;
        SlowestReport report;
        try
        {
            report = SlowestAnalysis.Run(
                new SlowestSettings(Path.GetFullPath(mode.TracePath), RequestSelection.Default, Top: Top),
                StackReaders.Create(StackReaderKind.NetTrace),
                inspect: (set, samples, scope, threshold) => pictures = PictureBuilder.Build(set, samples, scope, threshold, Top, set.Facts.DurationMSec));
        }
        catch (AnalyzerException e)
        {
            return (new AnalyzedMode(mode.Label, mode.TracePath, null, null, e.Message), new ModePage(mode.Label, null, e.Message, null));
        }

        var path = Path.GetFullPath(Path.Combine(directory, fileName));
        WritePage(path, o => new HtmlReportWriter(pictures).Write(report, o));
        if (pictures is not null)
        {
            timelines[mode.Label] = TimelinePicture.Of(pictures);
        }

        return (new AnalyzedMode(mode.Label, mode.TracePath, fileName, report, null), new ModePage(mode.Label, path, null, report.Trace.Truncation));
    }

    /// <summary>Written whole or not at all, as the CLI's --output.</summary>
    private static void WritePage(string path, Action<TextWriter> render)
    {
        using var writer = new StringWriter();
        render(writer);
        File.WriteAllText(path, writer.ToString());
    }
}
