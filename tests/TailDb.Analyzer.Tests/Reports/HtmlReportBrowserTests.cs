using Microsoft.Playwright;
using TailDb.Analyzer.Attribution;
using TailDb.Analyzer.Commands;
using TailDb.Analyzer.Computers;
using TailDb.Analyzer.Reports;
using TailDb.Analyzer.Sources;
using TailDb.Analyzer.Stacks;
using TailDb.Analyzer.Tests.Recording;

namespace TailDb.Analyzer.Tests.Reports;

/// <summary>
/// Opens the `slowest --format html` page of a recorded workload in a real Chromium (Debian's,
/// driven by Playwright through ExecutablePath; .ci/browser-tools.sh installs it) and checks what the
/// script drew against what the analysis found, then brushes a time range. Screenshots land in
/// the test output's screenshots/ folder.
/// </summary>
[Collection(WorkloadTracesGroup.Name)]
public sealed class HtmlReportBrowserTests(WorkloadTraces traces)
{
    private const string Chromium = ChromiumFactAttribute.Chromium;

    public static string ScreenshotDirectory => Path.Combine(AppContext.BaseDirectory, "screenshots");

    [ChromiumFact]
    public async Task SlowestPageDrawsEveryGcPauseSlowRequestAndFrameAndZoomsOnABrush()
    {
        var html = Path.Combine(traces.Directory, "slowest.html");
        SlowestCommand.Run(new SlowestCommand.Settings(new FileInfo(traces.GroundTruth), 2, null, new RequestSelection("TailDb", ["Get"]), 5,
            ReportFormat.Html, new FileInfo(html)));
        var report = SlowestAnalysis.Run(new SlowestSettings(traces.GroundTruth, new RequestSelection("TailDb", ["Get"]), 2, Top: 5), new NetTraceStackSampleReader());
        var gcPauses = SummaryAnalysis.Run(traces.GroundTruth, new RequestSelection("TailDb", ["Get"])).Gc.Pauses;

        await using var browser = await BrowserPage.OpenAsync();
        var page = browser.Page;
        var errors = browser.Errors;
        await page.GotoAsync(new Uri(html).AbsoluteUri);
        await page.WaitForFunctionAsync("() => window.taildb && window.taildb.ready");
        Directory.CreateDirectory(ScreenshotDirectory);
        await page.ScreenshotAsync(new() { Path = Path.Combine(ScreenshotDirectory, "slowest.png"), FullPage = true });

        Assert.Empty(errors);
        Assert.True(gcPauses > 0, "the workload forces GCs, so the trace has pauses");
        Assert.Equal(gcPauses, await page.EvaluateAsync<int>("() => window.taildb.gcBands"));
        Assert.Equal(report.Population.SlowCount, await page.EvaluateAsync<int>("() => window.taildb.slowMarks"));
        var frames = await page.EvaluateAsync<int>("() => window.taildb.flameFrames");
        Assert.True(frames > 1, $"flame graph drew {frames} frames");
        Assert.Equal(frames, await page.Locator("#flame rect").CountAsync());
        Assert.Equal(Math.Min(5, report.Population.SlowCount), await page.Locator("#views .view").CountAsync());
        Assert.Equal(0, await page.EvaluateAsync<int>("() => document.querySelectorAll('table').length === 0 ? 1 : [...document.querySelectorAll('table')].filter(t => t.scrollWidth > t.clientWidth + 1 || t.getBoundingClientRect().right > 1280).length"));

        var fullSpan = await Span(page);
        var box = (await page.Locator("#timeline").BoundingBoxAsync())!;
        // Brush 5% of the plot's width around the slowest request's start.
        var slowX = (float)await page.EvaluateAsync<double>("() => window.taildb.x(window.taildb.slowStarts[0])");
        await page.Mouse.MoveAsync(box.X + slowX - (box.Width * 0.025f), box.Y + (box.Height / 2));
        await page.Mouse.DownAsync();
        await page.Mouse.MoveAsync(box.X + slowX + (box.Width * 0.025f), box.Y + (box.Height / 2), new() { Steps = 5 });
        await page.Mouse.UpAsync();
        var zoomed = await Span(page);
        Assert.True(await page.EvaluateAsync<int>("() => window.taildb.slowMarks") >= 1, "the brushed range holds the slow request it was drawn around");
        await page.Locator("#timeline").ScreenshotAsync(new() { Path = Path.Combine(ScreenshotDirectory, "slowest-brushed.png") });
        Assert.True(zoomed < fullSpan * 0.1, $"brushing 5% of the plot left a span of {zoomed} ms of {fullSpan} ms");
        Assert.True(zoomed >= 1 - 1e-9, $"a zoom stops at 1 ms, not {zoomed} ms");

        await page.Locator("[data-flame=diff]").ClickAsync();
        await page.Locator("#flame").ScreenshotAsync(new() { Path = Path.Combine(ScreenshotDirectory, "slowest-differential.png") });
        Assert.Empty(errors);
    }

    private static Task<double> Span(IPage page) => page.EvaluateAsync<double>("() => window.taildb.view.to - window.taildb.view.from");
}
