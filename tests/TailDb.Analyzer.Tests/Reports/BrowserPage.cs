using Microsoft.Playwright;

namespace TailDb.Analyzer.Tests.Reports;

/// <summary>
/// One headless Chromium page (Debian's chromium, 1280x1000) for the browser tests, collecting every
/// console error and uncaught page error so a test can assert there were none.
/// </summary>
internal sealed class BrowserPage : IAsyncDisposable
{
    private readonly IPlaywright _playwright;
    private readonly IBrowser _browser;

    private BrowserPage(IPlaywright playwright, IBrowser browser, IPage page)
    {
        _playwright = playwright;
        _browser = browser;
        Page = page;
        page.Console += (_, message) =>
        {
            if (message.Type == "error")
            {
                Errors.Add(message.Text);
            }
        };
        page.PageError += (_, error) => Errors.Add(error);
    }

    public IPage Page { get; }

    public List<string> Errors { get; } = [];

    public static async Task<BrowserPage> OpenAsync()
    {
        var playwright = await Playwright.CreateAsync();
        var browser = await playwright.Chromium.LaunchAsync(new() { ExecutablePath = ChromiumFactAttribute.Chromium, Headless = true, Args = ["--no-sandbox"] });
        var page = await browser.NewPageAsync(new() { ViewportSize = new() { Width = 1280, Height = 1000 } });
        return new BrowserPage(playwright, browser, page);
    }

    public async ValueTask DisposeAsync()
    {
        await _browser.DisposeAsync();
        _playwright.Dispose();
    }
}
