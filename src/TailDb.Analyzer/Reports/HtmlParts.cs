using System.Globalization;
using System.Net;
using TailDb.Analyzer.Causes;

namespace TailDb.Analyzer.Reports;

/// <summary>What every HTML page writes alike: escaped text, numbers, fixed-layout tables, shortened names with the full one on hover, the inlined assets.</summary>
internal static class HtmlParts
{
    public static readonly CultureInfo Invariant = CultureInfo.InvariantCulture;

    /// <summary>Cells are HTML already (see <see cref="T"/> and <see cref="Frame"/>).</summary>
    public static void Table(TextWriter o, string[] headers, IEnumerable<string[]> rows, string kind = "plain")
    {
        o.Write($"<table class=\"{kind}\"><tr>");
        foreach (var h in headers)
        {
            o.Write($"<th>{E(h)}</th>");
        }

        o.WriteLine("</tr>");
        foreach (var row in rows)
        {
            o.Write("<tr>");
            foreach (var cell in row)
            {
                o.Write($"<td>{cell}</td>");
            }

            o.WriteLine("</tr>");
        }

        o.WriteLine("</table>");
    }

    /// <summary>A frame shortened to Type.Method(…), the full name on hover and one click away.</summary>
    public static string Frame(string frame)
    {
        ArgumentNullException.ThrowIfNull(frame);
        var shown = Shorten(frame);
        return shown == frame ? $"<span class=\"frame\">{E(frame)}</span>" : Expandable(shown, frame, "frame");
    }

    /// <summary>
    /// Text shown cut or shortened, the whole of it on hover and, since a tooltip cannot be read on a
    /// touch screen, copied or kept open, a click away: a details element, no script.
    /// </summary>
    public static string Expandable(string shown, string full, string kind) =>
        $"<details class=\"cut {kind}\"><summary title=\"{E(full)}\"><span class=\"short\">{E(shown)}</span></summary><span class=\"full\">{E(full)}</span></details>";

    /// <summary>"Ns.Sub.Type`1[Ns.Arg].Method(System.String, ...)" becomes "Type`1.Method(…)": the part a reader recognises.</summary>
    public static string Shorten(string frame)
    {
        ArgumentNullException.ThrowIfNull(frame);
        if (frame.StartsWith('[') || frame.Length <= 48)
        {
            return frame;
        }

        var paren = frame.IndexOf('(', StringComparison.Ordinal);
        var name = paren >= 0 ? frame[..paren] : frame;
        var args = paren >= 0 ? (frame.EndsWith("()", StringComparison.Ordinal) ? "()" : "(…)") : "";
        // Generic arguments carry full names of their own: drop them before splitting on dots.
        var bare = new System.Text.StringBuilder();
        var depth = 0;
        foreach (var ch in name)
        {
            depth += ch == '[' || ch == '<' ? 1 : ch == ']' || ch == '>' ? -1 : 0;
            if (depth == 0 && ch != ']' && ch != '>')
            {
                bare.Append(ch);
            }
        }

        var parts = bare.ToString().Split('.', StringSplitOptions.RemoveEmptyEntries);
        var tail = parts.Length >= 2 ? parts[^2] + "." + parts[^1] : bare.ToString();
        return tail + args;
    }

    public static string T(string s) => E(s);

    public static string Asset(string name)
    {
        using var stream = typeof(HtmlParts).Assembly.GetManifestResourceStream("TailDb.Analyzer.Reports.Html." + name)
            ?? throw new InvalidOperationException($"embedded {name} missing from the build");
        using var reader = new StreamReader(stream);
        return reader.ReadToEnd();
    }

    public static string E(string s) => WebUtility.HtmlEncode(s);

    public static string N(double v) => v.ToString("0.###", Invariant);

    public static string Share(double v, CauseUnit unit) => unit == CauseUnit.Milliseconds ? (v * 100).ToString("0.0", Invariant) + "%" : v.ToString("0.###", Invariant) + "/req";

    /// <summary>A name cut to <paramref name="max"/> characters when longer, the whole name one click away (cause names, ranges).</summary>
    public static string Named(string name, int max = 48)
    {
        ArgumentNullException.ThrowIfNull(name);
        return name.Length <= max ? E(name) : Expandable(name[..(max - 1)] + "…", name, "name");
    }

    /// <summary>A path shown by its file name, the full path one click away.</summary>
    public static string FileName(string path)
    {
        ArgumentNullException.ThrowIfNull(path);
        var name = Path.GetFileName(path);
        return name == path ? E(path) : Expandable(name, path, "name");
    }
}
