using TailDb.Analyzer.Tests.Recording;
using TailDb.TestSupport.Skipping;

namespace TailDb.Analyzer.Tests.Reports;

/// <summary>
/// A test skipped for a missing tool says so in the line `dotnet test` prints by default: its name
/// carries the tool and the script that installs it, and the script exists.
/// </summary>
public sealed class ToolFactSkipTests
{
    [Fact]
    public void WithoutChromiumTheSkippedTestsNameSaysChromiumIsAbsentAndWhichScriptInstallsIt()
    {
        var fact = new ChromiumFactAttribute(present: false, "PageOpens", "/checkout/tests/Reports/HtmlReportBrowserTests.cs");

        Assert.Equal($"HtmlReportBrowserTests.PageOpens — {fact.Skip}", fact.DisplayName);
        Assert.Contains("chromium", fact.Skip, StringComparison.Ordinal);
        Assert.Contains(".ci/browser-tools.sh", fact.Skip, StringComparison.Ordinal);
        Assert.Empty(SkipNotice.MissingScripts(fact.Skip!));
    }

    [Fact]
    public void WithoutDotnetTraceTheSkippedTestsNameSaysSoAndWhichScriptInstallsIt()
    {
        var fact = new DotnetTraceFactAttribute(present: false, "ReadsIt", @"C:\checkout\tests\Recording\DotnetTraceRecordingTests.cs");

        Assert.Equal($"DotnetTraceRecordingTests.ReadsIt — {fact.Skip}", fact.DisplayName);
        Assert.Contains(".ci/trace-tools.sh", fact.Skip, StringComparison.Ordinal);
        Assert.Empty(SkipNotice.MissingScripts(fact.Skip!));
    }

    [Fact]
    public void WithTheToolPresentTheTestRunsUnderItsOwnName()
    {
        FactAttribute[] facts = [new ChromiumFactAttribute(present: true, "M", "T.cs"), new DotnetTraceFactAttribute(present: true, "M", "T.cs")];
        Assert.All(facts, fact => Assert.True(fact.Skip is null && fact.DisplayName is null));
    }

    [Fact]
    public void AReasonNamingAScriptTheCheckoutLacksIsCaught()
    {
        Assert.Equal([".ci/no-such-tools.sh"], SkipNotice.MissingScripts("run .ci/no-such-tools.sh or .ci/browser-tools.sh"));
    }
}
