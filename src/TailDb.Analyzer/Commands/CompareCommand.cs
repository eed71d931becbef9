using System.CommandLine;
using TailDb.Analyzer.Attribution;
using TailDb.Analyzer.Comparison;
using TailDb.Analyzer.Computers;
using TailDb.Analyzer.Pictures;
using TailDb.Analyzer.Reports;
using TailDb.Analyzer.Sources;
using TailDb.Analyzer.Stacks;
using TailDb.Analyzer.Traces;

namespace TailDb.Analyzer.Commands;

/// <summary>`compare a.nettrace b.nettrace`: the same `slowest` analysis of both, side by side (B measured against A).</summary>
internal static class CompareCommand
{
    public static readonly Argument<FileInfo> TraceA = new("a") { Description = "The first trace, the baseline (.nettrace; .etl on Windows)." };

    public static readonly Argument<FileInfo> TraceB = new("b") { Description = "The second trace, measured against the first." };

    public static readonly Option<ReportFormat> Format = CommonOptions.Format(ReportFormat.Text, ReportFormat.Json, ReportFormat.Html);

    public static readonly Option<bool> SlowestPages = new("--slowest-pages")
    {
        Description = "With --format html -o FILE: also write each trace's slowest page beside FILE (FILE.a.html, FILE.b.html), linked from the comparison.",
    };

    /// <summary>How many slow requests a --slowest-pages page lists (slowest's default --top).</summary>
    private const int PageTop = 10;

    /// <param name="StackReader">Which reader reads the samples' stacks, or null for --no-stacks.</param>
    public sealed record Settings(
        FileInfo A, FileInfo B, double Percent, double? ThresholdMs, RequestSelection Selection, ReportFormat Format, FileInfo? Output,
        StackReaderKind? StackReader = StackReaderKind.NetTrace, ScopeSettings? Scope = null, bool SlowestPages = false);

    public static Command Create()
    {
        var command = new Command("compare", "Two traces side by side (workstation vs server GC, before vs after a fix): percentiles, causes and verdicts of the same slowest analysis.")
        {
            TraceA, TraceB, CommonOptions.Percent, CommonOptions.ThresholdMs, CommonOptions.Provider, CommonOptions.Activity,
            CommonOptions.ArrivalField, CommonOptions.Phase, CommonOptions.From, CommonOptions.To,
            Format, CommonOptions.Output, SlowestPages, CommonOptions.NoStacks, CommonOptions.StackReader,
        };
        command.SetAction(parseResult => Run(Bind(parseResult)));
        return command;
    }

    public static Settings Bind(ParseResult parseResult)
    {
        ArgumentNullException.ThrowIfNull(parseResult);
        return new Settings(
            parseResult.GetValue(TraceA)!,
            parseResult.GetValue(TraceB)!,
            parseResult.GetValue(CommonOptions.Percent),
            parseResult.GetValue(CommonOptions.ThresholdMs),
            CommonOptions.Selection(parseResult),
            parseResult.GetValue(Format),
            parseResult.GetValue(CommonOptions.Output),
            parseResult.GetValue(CommonOptions.NoStacks) ? null : parseResult.GetValue(CommonOptions.StackReader),
            CommonOptions.Scope(parseResult),
            parseResult.GetValue(SlowestPages));
    }

    public static int Run(Settings settings)
    {
        ArgumentNullException.ThrowIfNull(settings);
        SlowestCommand.CheckSlowSet(settings.Percent, settings.ThresholdMs);
        if (settings.SlowestPages && (settings.Format != ReportFormat.Html || settings.Output is null))
        {
            throw new AnalyzerException(ExitCode.BadArguments, "--slowest-pages needs --format html and -o FILE (the pages are written beside FILE)");
        }

        // Both files before either analysis: a missing B must not cost A's whole analysis first.
        TraceFile.Check(settings.A.FullName);
        TraceFile.Check(settings.B.FullName);
        var a = Analyze(settings.A, settings);
        var b = Analyze(settings.B, settings);
        var report = ComparisonBuilder.Build(a.Report, b.Report);
        var pages = settings.SlowestPages ? (A: PagePath(settings.Output!, "a"), B: PagePath(settings.Output!, "b")) : default;
        var writer = ReportWriters.For(settings.Format, ComparisonTextWriter.Instance, JsonReportWriter.Instance,
            new ComparisonHtmlWriter(Timeline(a.Pictures), Timeline(b.Pictures), pages.A?.Name, pages.B?.Name));
        ReportOutput.Write(settings.Output, output => writer.Write(report, output));
        if (settings.SlowestPages)
        {
            ReportOutput.Write(pages.A, output => new HtmlReportWriter(a.Pictures).Write(a.Report, output));
            ReportOutput.Write(pages.B, output => new HtmlReportWriter(b.Pictures).Write(b.Report, output));
        }

        return (int)(a.Report.Trace.Truncation is null && b.Report.Trace.Truncation is null ? ExitCode.Success : ExitCode.TruncatedTrace);
    }

    /// <summary>"DIR/compare.html" gives "DIR/compare.a.html".</summary>
    private static FileInfo PagePath(FileInfo output, string side) =>
        new(Path.Combine(output.DirectoryName ?? ".", $"{Path.GetFileNameWithoutExtension(output.Name)}.{side}.html"));

    private static TimelinePicture? Timeline(PictureData? pictures) => pictures is null ? null : TimelinePicture.Of(pictures);

    /// <summary>One side: the `slowest` analysis (listing slow requests only for a slowest page), and its pictures when a page will draw them.</summary>
    private static (SlowestReport Report, PictureData? Pictures) Analyze(FileInfo trace, Settings settings)
    {
        PictureData? pictures = null;
        var top = settings.SlowestPages ? PageTop : 0;
        var report = SlowestAnalysis.Run(
            new SlowestSettings(trace.FullName, settings.Selection, settings.Percent, settings.ThresholdMs, top, settings.Scope),
            settings.StackReader is { } reader ? StackReaders.Create(reader) : null,
            inspect: settings.Format == ReportFormat.Html
                ? (set, samples, scope, threshold) => pictures = PictureBuilder.Build(set, samples, scope, threshold, top, set.Facts.DurationMSec)
                : null);
        return (report, pictures);
    }
}
