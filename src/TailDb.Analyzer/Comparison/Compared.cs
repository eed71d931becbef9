using System.Globalization;
using TailDb.Analyzer.Attribution;
using TailDb.Analyzer.Causes;

namespace TailDb.Analyzer.Comparison;

/// <summary>The spellings of a comparison's numbers that the text and HTML renderers share (JSON keeps the numbers).</summary>
internal static class Compared
{
    private static readonly CultureInfo s_inv = CultureInfo.InvariantCulture;

    /// <summary>"0.42x"; "n/a" without a ratio (a missing side, or A was 0).</summary>
    public static string Ratio(double? ratio) => ratio is { } r ? r.ToString("0.00", s_inv) + "x" : "n/a";

    /// <summary>"+1.234 ms", "-0.5 ms"; "n/a" for a missing side.</summary>
    public static string Delta(double? ms) => ms is { } d ? d.ToString("+0.###;-0.###;0", s_inv) : "n/a";

    /// <summary>"12.3 ms", or "-" when the activity has no request on that side.</summary>
    public static string Ms(double? ms) => ms is { } v ? v.ToString("0.###", s_inv) : "-";

    /// <summary>A side's slow share: "45.0%" (or "0.25/req" for event causes); "-" when that trace never had the cause.</summary>
    public static string Share(CauseSide? side, CauseUnit unit) => side is null ? "-" : ShareOf(side.SlowShare, unit);

    /// <summary>The change of the slow share: "+12.3 pp" (percentage points) or "+0.25/req".</summary>
    public static string Change(double change, CauseUnit unit) =>
        unit == CauseUnit.Milliseconds ? (change * 100).ToString("+0.0;-0.0;0.0", s_inv) + " pp" : change.ToString("+0.###;-0.###;0", s_inv) + "/req";

    public static string Lift(CauseSide? side) => side is null ? "-" : CauseRow.Spell(side.Lift);

    private static string ShareOf(double share, CauseUnit unit) =>
        unit == CauseUnit.Milliseconds ? (share * 100).ToString("0.0", s_inv) + "%" : share.ToString("0.###", s_inv) + "/req";
}
