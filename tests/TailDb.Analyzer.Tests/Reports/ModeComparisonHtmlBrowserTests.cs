using Microsoft.Playwright;
using TailDb.Analyzer.Attribution;
using TailDb.Analyzer.Comparison;
using TailDb.Analyzer.Computers;
using TailDb.Analyzer.Reports;
using TailDb.Analyzer.Sources;
using TailDb.Analyzer.Tests.Recording;

namespace TailDb.Analyzer.Tests.Reports;

/// <summary>
/// Opens the page the load test's --report writes (<see cref="ModeReports"/>) in a real Chromium, as
/// <see cref="ComparisonHtmlBrowserTests"/> does the compare page: no console error, every mode's
/// timeline draws its trace's GC pauses and slow requests on one shared scale, a mode without a trace
/// draws none, a brush on one zooms all, and a mode's link opens its slowest page, which draws too.
/// </summary>
[Collection(WorkloadTracesGroup.Name)]
public sealed class ModeComparisonHtmlBrowserTests(WorkloadTraces traces) : IDisposable
{
    private readonly DirectoryInfo _output = Directory.CreateTempSubdirectory("taildb-modes-page-");

    public void Dispose() => _output.Delete(recursive: true);

    [ChromiumFact]
    public async Task ModesPageDrawsEveryModesTimelineOnOneScaleAndLinksEachModesPage()
    {
        var pages = ModeReports.Write([new("workstation", traces.GroundTruth), new("crashed", null), new("server", traces.Snapshot)], _output.FullName);
        var a = SlowestAnalysis.Run(new SlowestSettings(traces.GroundTruth, RequestSelection.Default), stackReader: null);
        var b = SlowestAnalysis.Run(new SlowestSettings(traces.Snapshot, RequestSelection.Default), stackReader: null);
        var gcA = SummaryAnalysis.Run(traces.GroundTruth, RequestSelection.Default).Gc.Pauses;
        var gcB = SummaryAnalysis.Run(traces.Snapshot, RequestSelection.Default).Gc.Pauses;

        await using var browser = await BrowserPage.OpenAsync();
        var page = browser.Page;
        var errors = browser.Errors;
        await page.GotoAsync(new Uri(pages.ComparisonPage).AbsoluteUri);
        await page.WaitForFunctionAsync("() => window.taildb && window.taildb.ready");
        Directory.CreateDirectory(HtmlReportBrowserTests.ScreenshotDirectory);
        await page.ScreenshotAsync(new() { Path = Path.Combine(HtmlReportBrowserTests.ScreenshotDirectory, "modes.png"), FullPage = true });

        Assert.Empty(errors);
        Assert.Equal(["m0", "m2"], await page.EvaluateAsync<string[]>("() => window.taildb.keys"));
        Assert.Equal(2, await page.Locator("canvas").CountAsync());
        Assert.Equal(gcA, await page.EvaluateAsync<int>("() => window.taildb.m0.gcBands"));
        Assert.Equal(gcB, await page.EvaluateAsync<int>("() => window.taildb.m2.gcBands"));
        Assert.Equal(a.Population.SlowCount, await page.EvaluateAsync<int>("() => window.taildb.m0.slowMarks"));
        Assert.Equal(b.Population.SlowCount, await page.EvaluateAsync<int>("() => window.taildb.m2.slowMarks"));
        Assert.Equal(3, await page.Locator("p.verdict").CountAsync());
        Assert.Equal(0, await page.EvaluateAsync<int>("() => [...document.querySelectorAll('table')].filter(t => t.scrollWidth > t.clientWidth + 1 || t.getBoundingClientRect().right > 1280).length"));

        var box = (await page.Locator("#timeline-m0").BoundingBoxAsync())!;
        var full = await Span(page);
        // Brush 5% of the first plot around its slowest request.
        var slowX = (float)await page.EvaluateAsync<double>("() => window.taildb.x(Math.max(...window.taildb.slowStarts.m0))");
        await page.Mouse.MoveAsync(box.X + slowX - (box.Width * 0.025f), box.Y + (box.Height / 2));
        await page.Mouse.DownAsync();
        await page.Mouse.MoveAsync(box.X + slowX + (box.Width * 0.025f), box.Y + (box.Height / 2), new() { Steps = 5 });
        await page.Mouse.UpAsync();
        await page.ScreenshotAsync(new() { Path = Path.Combine(HtmlReportBrowserTests.ScreenshotDirectory, "modes-brushed.png"), FullPage = true });
        Assert.True(await Span(page) < full * 0.1, "brushing 5% of one plot zooms the shared view");
        Assert.True(await page.EvaluateAsync<int>("() => window.taildb.m0.slowMarks") >= 1, "the brushed range holds the slow request it was drawn around");
        Assert.Equal(
            await page.EvaluateAsync<string>("() => document.getElementById('timeline-m0').dataset.from + '-' + document.getElementById('timeline-m0').dataset.to"),
            await page.EvaluateAsync<string>("() => document.getElementById('timeline-m2').dataset.from + '-' + document.getElementById('timeline-m2').dataset.to"));

        // Every cell cut short ("…", a file name for a path) opens, on a click, to its whole text.
        Assert.Equal(0, await page.EvaluateAsync<int>("() => [...document.querySelectorAll('td')].filter(td => td.innerText.includes('…') && !td.querySelector('details.cut')).length"));
        var cut = page.Locator("details.cut");
        Assert.True(await cut.CountAsync() >= 2, "the traces' paths are shown by file name");
        for (var i = 0; i < await cut.CountAsync(); i++)
        {
            await cut.Nth(i).Locator("summary").ClickAsync();
            Assert.True(await cut.Nth(i).Locator(".full").IsVisibleAsync());
            Assert.Equal(await cut.Nth(i).Locator("summary").GetAttributeAsync("title"), await cut.Nth(i).Locator(".full").InnerTextAsync());
        }

        await page.Locator("table.modes a[href='server.html']").ClickAsync();
        await page.WaitForFunctionAsync("() => window.taildb && window.taildb.ready && typeof window.taildb.flameFrames === 'number'");
        Assert.EndsWith("/server.html", page.Url, StringComparison.Ordinal);
        Assert.Equal(gcB, await page.EvaluateAsync<int>("() => window.taildb.gcBands"));
        Assert.Empty(errors);
    }

    private static Task<double> Span(IPage page) => page.EvaluateAsync<double>("() => window.taildb.view.to - window.taildb.view.from");
}
