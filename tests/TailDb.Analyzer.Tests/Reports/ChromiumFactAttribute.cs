using System.Runtime.CompilerServices;
using TailDb.TestSupport.Skipping;

namespace TailDb.Analyzer.Tests.Reports;

/// <summary>
/// A fact that opens a page in Debian's chromium (Playwright drives it through ExecutablePath; its
/// own browser download cannot work here). Skipped, with the reason shown, only when chromium is
/// absent, so the README's `dotnet test` runs on a bare machine; .ci/run installs it first
/// (.ci/browser-tools.sh), so CI runs these.
/// </summary>
public sealed class ChromiumFactAttribute : FactAttribute
{
    public const string Chromium = "/usr/bin/chromium";

    public const string Absent = $"{Chromium} is absent: run .ci/browser-tools.sh (apt-get install chromium; .ci/run does)";

    public ChromiumFactAttribute([CallerMemberName] string member = "", [CallerFilePath] string file = "")
        : this(File.Exists(Chromium), member, file)
    {
    }

    internal ChromiumFactAttribute(bool present, string member, string file)
    {
        if (!present)
        {
            Skip = Absent;
            DisplayName = SkipNotice.DisplayName(Skip, member, file);
        }
    }
}
