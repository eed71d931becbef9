using TailDb.Analyzer.Reports;
using TailDb.LoadTest.Harness;

namespace TailDb.LoadTest.Reporting;

/// <summary>
/// --report DIR: after every mode has run, the analyzer's public pipeline (<see cref="ModeReports"/>)
/// writes each traced mode's slowest page and DIR/index.html comparing them. It runs here, in the
/// harness, once the workers have exited: no analysis shares the machine with a measured phase.
/// </summary>
internal static class HtmlReport
{
    /// <summary>Creates DIR and proves it writable before anything runs, so a bad DIR costs no run.</summary>
    public static void Prepare(DirectoryInfo directory)
    {
        string probe = Path.Combine(directory.FullName, $".taildb-report-probe-{Environment.ProcessId}");
        try
        {
            directory.Create();
            File.WriteAllText(probe, "");
            File.Delete(probe);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException or ArgumentException or NotSupportedException)
        {
            throw Unwritable(directory, e);
        }
    }

    /// <summary>Writes the pages, prints where they are, and returns a problem for each traced mode the analyzer could not read.</summary>
    public static IReadOnlyList<Problem> Write(DirectoryInfo directory, IReadOnlyList<ModeReport> reports, int runs, int targets, TextWriter output, TextWriter? progress)
    {
        var traced = reports.Where(r => r.Target.Kind != Target.TargetKind.Endpoint).ToList();
        var modes = traced.Select(r => new ModeTrace(Label(r, runs, targets), r.Trace?.Path)).ToList();
        var clock = System.Diagnostics.Stopwatch.StartNew();
        ModeReportPages pages;
        try
        {
            pages = ModeReports.Write(modes, directory.FullName, progress);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            throw Unwritable(directory, e);
        }

        var problems = new List<Problem>();
        for (int i = 0; i < pages.Modes.Count; i++)
        {
            ModePage page = pages.Modes[i];
            output.WriteLine($"report {page.Label}: {page.Page ?? "no page: " + page.Problem}");
            // A run that left no trace already has its own problem (the worker's); only an unreadable trace is the report's.
            if (page.Problem is not null && traced[i].Trace is not null)
            {
                problems.Add(new Problem(ExitCode.ReportFailed, $"--report: mode '{page.Label}': {page.Problem}"));
            }
        }

        output.WriteLine($"report: {pages.ComparisonPage} (every mode side by side, linking each mode's page; analyzed and written in {clock.Elapsed.TotalSeconds:0.0} s)");
        return problems;
    }

    /// <summary>"workstation"; with several targets "workstation taildb-server"; with --repeat "workstation run 2".</summary>
    public static string Label(ModeReport report, int runs, int targets) =>
        report.Mode.Name + (targets > 1 ? " " + report.Target.Name : "") + (runs > 1 ? $" run {report.Run}" : "");

    private static LoadTestException Unwritable(DirectoryInfo directory, Exception e) =>
        new(ExitCode.OutputFailed, $"--report: cannot write {directory.FullName}: {e.Message}", e);
}
