using System.Globalization;

namespace TailDb.Cli;

/// <summary>"1 request", "2 requests": a count and its noun agreeing in number, for every sentence a tool prints.</summary>
public static class Counted
{
    public static string Of(long count, string singular, string? plural = null) =>
        $"{count.ToString("N0", CultureInfo.CurrentCulture)} {(count == 1 ? singular : plural ?? singular + "s")}";

    /// <summary>"was" or "were" for <paramref name="count"/> things.</summary>
    public static string Were(long count) => count == 1 ? "was" : "were";
}
