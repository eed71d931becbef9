using Microsoft.Playwright;
using TailDb.Analyzer.Attribution;
using TailDb.Analyzer.Commands;
using TailDb.Analyzer.Computers;
using TailDb.Analyzer.Reports;
using TailDb.Analyzer.Sources;
using TailDb.Analyzer.Tests.Recording;

namespace TailDb.Analyzer.Tests.Reports;

/// <summary>
/// Opens the `compare --format html` page of two recorded workloads in a real Chromium (as
/// <see cref="HtmlReportBrowserTests"/> does the slowest page) and checks that both timelines draw every
/// GC pause and slow request of their trace, that a brush on one zooms both (one shared scale), and that
/// no table overflows at 1280 px. Screenshots land in the test output's screenshots/ folder.
/// </summary>
[Collection(WorkloadTracesGroup.Name)]
public sealed class ComparisonHtmlBrowserTests(WorkloadTraces traces)
{
    private const string Chromium = ChromiumFactAttribute.Chromium;

    private static readonly RequestSelection s_gets = new("TailDb", ["Get"]);

    [ChromiumFact]
    public async Task ComparePageDrawsBothTimelinesOnOneScaleAndABrushZoomsBoth()
    {
        var html = Path.Combine(traces.Directory, "compare.html");
        CompareCommand.Run(new CompareCommand.Settings(new FileInfo(traces.GroundTruth), new FileInfo(traces.Snapshot), 2, null, s_gets,
            ReportFormat.Html, new FileInfo(html)));
        var a = SlowestAnalysis.Run(new SlowestSettings(traces.GroundTruth, s_gets, 2, Top: 0), stackReader: null);
        var b = SlowestAnalysis.Run(new SlowestSettings(traces.Snapshot, s_gets, 2, Top: 0), stackReader: null);
        var gcA = SummaryAnalysis.Run(traces.GroundTruth, s_gets).Gc.Pauses;
        var gcB = SummaryAnalysis.Run(traces.Snapshot, s_gets).Gc.Pauses;

        await using var browser = await BrowserPage.OpenAsync();
        var page = browser.Page;
        var errors = browser.Errors;
        await page.GotoAsync(new Uri(html).AbsoluteUri);
        await page.WaitForFunctionAsync("() => window.taildb && window.taildb.ready");
        Directory.CreateDirectory(HtmlReportBrowserTests.ScreenshotDirectory);
        await page.ScreenshotAsync(new() { Path = Path.Combine(HtmlReportBrowserTests.ScreenshotDirectory, "compare.png"), FullPage = true });

        Assert.Empty(errors);
        Assert.True(gcA > 0 && gcB > 0, "both workloads force GCs, so both traces have pauses");
        Assert.Equal(gcA, await page.EvaluateAsync<int>("() => window.taildb.a.gcBands"));
        Assert.Equal(gcB, await page.EvaluateAsync<int>("() => window.taildb.b.gcBands"));
        Assert.Equal(a.Population.SlowCount, await page.EvaluateAsync<int>("() => window.taildb.a.slowMarks"));
        Assert.Equal(b.Population.SlowCount, await page.EvaluateAsync<int>("() => window.taildb.b.slowMarks"));
        Assert.Equal(2, await page.Locator("canvas").CountAsync());
        Assert.Equal(5, await page.Locator("table.percentiles tr").CountAsync() - 1);
        Assert.Equal(0, await page.EvaluateAsync<int>("() => document.querySelectorAll('table').length === 0 ? 1 : [...document.querySelectorAll('table')].filter(t => t.scrollWidth > t.clientWidth + 1 || t.getBoundingClientRect().right > 1280).length"));
        var boxA = (await page.Locator("#timeline-a").BoundingBoxAsync())!;
        var boxB = (await page.Locator("#timeline-b").BoundingBoxAsync())!;
        Assert.Equal((boxA.X, boxA.Width), (boxB.X, boxB.Width)); // equal x is equal time on both

        var fullSpan = await Span(page);
        // Brush 5% of A's plot around A's slowest request.
        var slowX = (float)await page.EvaluateAsync<double>("() => window.taildb.x(Math.max(...window.taildb.slowStarts.a))");
        await page.Mouse.MoveAsync(boxA.X + slowX - (boxA.Width * 0.025f), boxA.Y + (boxA.Height / 2));
        await page.Mouse.DownAsync();
        await page.Mouse.MoveAsync(boxA.X + slowX + (boxA.Width * 0.025f), boxA.Y + (boxA.Height / 2), new() { Steps = 5 });
        await page.Mouse.UpAsync();
        var zoomed = await Span(page);
        await page.ScreenshotAsync(new() { Path = Path.Combine(HtmlReportBrowserTests.ScreenshotDirectory, "compare-brushed.png"), FullPage = true });
        Assert.True(zoomed < fullSpan * 0.1, $"brushing 5% of the plot left a span of {zoomed} ms of {fullSpan} ms");
        Assert.True(await page.EvaluateAsync<int>("() => window.taildb.a.slowMarks") >= 1, "the brushed range holds the slow request it was drawn around");
        Assert.Equal(
            await page.EvaluateAsync<string>("() => document.getElementById('timeline-a').dataset.from + '-' + document.getElementById('timeline-a').dataset.to"),
            await page.EvaluateAsync<string>("() => document.getElementById('timeline-b').dataset.from + '-' + document.getElementById('timeline-b').dataset.to"));

        await page.Locator("#reset").ClickAsync();
        Assert.Equal(fullSpan, await Span(page), 6);
        Assert.Empty(errors);
    }

    private static Task<double> Span(IPage page) => page.EvaluateAsync<double>("() => window.taildb.view.to - window.taildb.view.from");
}
