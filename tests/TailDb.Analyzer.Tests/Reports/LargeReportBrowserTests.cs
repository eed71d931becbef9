using System.Diagnostics;
using System.Globalization;
using System.Runtime.CompilerServices;
using Microsoft.Playwright;
using Xunit.Abstractions;
using TailDb.TestSupport.Skipping;

namespace TailDb.Analyzer.Tests.Reports;

/// <summary>
/// The "size and open time of the report for a 250,000-request trace": opens the slowest page
/// named by TAILDB_LARGE_REPORT (written beforehand, e.g. from a load-test trace with --rate 25000
/// --duration 10) in Debian's chromium, as the other browser tests do, and prints its size, the time
/// until its script has drawn everything, and the time a brush takes to redraw. Skipped unless the
/// variable names a file: the page is too large to write in every CI run.
/// </summary>
public sealed class LargeReportBrowserTests(ITestOutputHelper output)
{
    public const string Variable = "TAILDB_LARGE_REPORT";

    [LargeReportFact]
    public async Task ALargeReportOpensWithoutErrorAndItsBrushRedraws()
    {
        var html = Environment.GetEnvironmentVariable(Variable)!;
        await using var browser = await BrowserPage.OpenAsync();
        var page = browser.Page;
        var errors = browser.Errors;

        var open = Stopwatch.StartNew();
        await page.GotoAsync(new Uri(html).AbsoluteUri, new() { Timeout = 120_000 });
        await page.WaitForFunctionAsync("() => window.taildb && window.taildb.ready", null, new() { Timeout = 120_000 });
        open.Stop();
        var inPage = await page.EvaluateAsync<double>("() => performance.now()");
        Directory.CreateDirectory(HtmlReportBrowserTests.ScreenshotDirectory);
        await page.ScreenshotAsync(new() { Path = Path.Combine(HtmlReportBrowserTests.ScreenshotDirectory, "large.png") });

        var dots = await page.EvaluateAsync<int>("() => window.taildb.slowMarks + window.taildb.restMarks");
        var box = (await page.Locator("#timeline").BoundingBoxAsync())!;
        var full = await page.EvaluateAsync<double>("() => window.taildb.view.to - window.taildb.view.from");
        var brush = Stopwatch.StartNew();
        await page.Mouse.MoveAsync(box.X + (box.Width * 0.5f), box.Y + (box.Height / 2));
        await page.Mouse.DownAsync();
        await page.Mouse.MoveAsync(box.X + (box.Width * 0.55f), box.Y + (box.Height / 2), new() { Steps = 2 });
        await page.Mouse.UpAsync();
        var zoomed = await page.EvaluateAsync<double>("() => window.taildb.view.to - window.taildb.view.from");
        brush.Stop();

        output.WriteLine(string.Create(CultureInfo.InvariantCulture,
            $"{html}: {new FileInfo(html).Length:N0} bytes; open to drawn {open.ElapsedMilliseconds} ms (performance.now() at ready check {inPage:0} ms); brush to redrawn {brush.ElapsedMilliseconds} ms; {dots:N0} dots drawn on the whole run"));
        Assert.Empty(errors);
        Assert.True(zoomed < full * 0.1, $"the brush left {zoomed} of {full} ms");
    }
}

/// <summary>A chromium fact that also needs <see cref="LargeReportBrowserTests.Variable"/> to name an existing page.</summary>
public sealed class LargeReportFactAttribute : FactAttribute
{
    public LargeReportFactAttribute([CallerMemberName] string member = "", [CallerFilePath] string file = "")
    {
        var path = Environment.GetEnvironmentVariable(LargeReportBrowserTests.Variable);
        if (!File.Exists(ChromiumFactAttribute.Chromium))
        {
            Skip = ChromiumFactAttribute.Absent;
        }
        else if (string.IsNullOrEmpty(path) || !File.Exists(path))
        {
            Skip = $"opt-in: set {LargeReportBrowserTests.Variable} to a slowest page (docs/analyzer.md, the 250,000-request figure)";
        }

        if (Skip is not null)
        {
            DisplayName = SkipNotice.DisplayName(Skip, member, file);
        }
    }
}
