using System.Runtime.CompilerServices;
using System.Text.Json.Nodes;
using System.Text.RegularExpressions;
using TailDb.Analyzer.Attribution;
using TailDb.Analyzer.Computers;
using TailDb.Analyzer.Reports;
using TailDb.Analyzer.Sources;
using TailDb.Analyzer.Tests.Recording;

namespace TailDb.Analyzer.Tests.Reports;

/// <summary>
/// Snapshots of the rendered reports on a small recorded trace (two forced gen2 GCs, no sampler).
/// Timings, counts and ids change every recording, so every number is normalised to '#' and the
/// column padding collapsed: what is pinned is the structure, the wording and the JSON shape.
/// Verify is not served here, so the comparison is by hand: on a mismatch the actual output is
/// written next to the expected file (*.actual) to diff and, if right, to copy over.
/// </summary>
[Collection(WorkloadTracesGroup.Name)]
public sealed partial class ReportSnapshotTests(WorkloadTraces traces)
{
    [Fact]
    public void SlowestTextReportMatchesSnapshot()
    {
        var writer = new StringWriter();
        TextReportWriter.Write(Slowest(), writer);
        AssertSnapshot("slowest.txt", NormaliseText(writer.ToString()));
    }

    [Fact]
    public void SlowestJsonReportMatchesSnapshot()
    {
        var writer = new StringWriter();
        JsonReportWriter.Write(Slowest(), writer);
        AssertSnapshot("slowest.json", NormaliseJson(writer.ToString()));
    }

    [Fact]
    public void SummaryTextReportMatchesSnapshot()
    {
        var writer = new StringWriter();
        TextReportWriter.Write(SummaryAnalysis.Run(traces.Snapshot, RequestSelection.TailDb), writer);
        AssertSnapshot("summary.txt", NormaliseText(writer.ToString()));
    }

    [Fact]
    public void HtmlReportEncodesAndCarriesTheVerdict()
    {
        var report = Slowest();
        var writer = new StringWriter();
        new HtmlReportWriter(pictures: null).Write(report, writer);
        var html = writer.ToString();
        Assert.StartsWith("<!DOCTYPE html>", html, StringComparison.Ordinal);
        Assert.Contains(System.Net.WebUtility.HtmlEncode(report.Verdict), html, StringComparison.Ordinal);
        Assert.EndsWith("</html>", html.TrimEnd(), StringComparison.Ordinal);
    }

    private SlowestReport Slowest() =>
        SlowestAnalysis.Run(new SlowestSettings(traces.Snapshot, RequestSelection.TailDb, Percent: 1, Top: 2), stackReader: null);

    // Shown only when most GC pause time fell between requests, which depends on scheduling in
    // the recorded run, so whether it appears is not part of the report's shape.
    private const string TimingDependentNote = "GC paused the process";

    private string NormaliseText(string text)
    {
        text = TimingDependentNoteLine().Replace(text, "");
        text = text.Replace(traces.Snapshot, "<trace>", StringComparison.Ordinal);
        text = Numbers().Replace(text, "#");
        text = Correlation().Replace(text, "r = #");
        return Padding().Replace(text, " ").ReplaceLineEndings("\n");
    }

    private string NormaliseJson(string json)
    {
        var node = JsonNode.Parse(json)!;
        Normalise(node);
        return node.ToJsonString(new System.Text.Json.JsonSerializerOptions { WriteIndented = true }).ReplaceLineEndings("\n") + "\n";

        void Normalise(JsonNode? n)
        {
            switch (n)
            {
                case JsonObject o:
                    foreach (var (key, value) in o.ToList())
                    {
                        if (value is JsonValue v && v.TryGetValue<double>(out _))
                        {
                            o[key] = 0;
                        }
                        else if (value is JsonValue s && s.TryGetValue<string>(out var text))
                        {
                            o[key] = NormaliseText(text);
                        }
                        else
                        {
                            Normalise(value);
                        }
                    }

                    break;
                case JsonArray a:
                    for (var i = a.Count - 1; i >= 0; i--)
                    {
                        if (a[i] is JsonValue note && note.TryGetValue<string>(out var noteText) &&
                            noteText.StartsWith(TimingDependentNote, StringComparison.Ordinal))
                        {
                            a.RemoveAt(i);
                        }
                    }

                    for (var i = 0; i < a.Count; i++)
                    {
                        if (a[i] is JsonValue v && v.TryGetValue<double>(out _))
                        {
                            a[i] = 0;
                        }
                        else if (a[i] is JsonValue s && s.TryGetValue<string>(out var text))
                        {
                            a[i] = NormaliseText(text);
                        }
                        else
                        {
                            Normalise(a[i]);
                        }
                    }

                    break;
            }
        }
    }

    private static void AssertSnapshot(string name, string actual, [CallerFilePath] string source = "")
    {
        var expectedPath = Path.Combine(Path.GetDirectoryName(source)!, "Snapshots", name);
        var actualPath = expectedPath + ".actual";
        var expected = File.Exists(expectedPath) ? File.ReadAllText(expectedPath).ReplaceLineEndings("\n") : null;
        if (expected == actual)
        {
            File.Delete(actualPath);
            return;
        }

        File.WriteAllText(actualPath, actual);
        Assert.Fail($"{name} differs from its snapshot; the actual output is in {actualPath}");
    }

    [GeneratedRegex(@"(?<![A-Za-z_#])\d[\d,]*(\.\d+)?")]
    private static partial Regex Numbers();

    // The sign and strength of a weak correlation between two unforced requests is noise.
    [GeneratedRegex(@"r = -?#( \((weak|duration rises with it)\))?")]
    private static partial Regex Correlation();

    [GeneratedRegex(@"^.*" + TimingDependentNote + @".*\n", RegexOptions.Multiline)]
    private static partial Regex TimingDependentNoteLine();

    [GeneratedRegex(@"[ ]{2,}")]
    private static partial Regex Padding();
}
