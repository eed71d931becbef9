using System.Text.Json;
using TailDb.Analyzer.Attribution;
using TailDb.Analyzer.Commands;
using TailDb.Analyzer.Computers;
using TailDb.Analyzer.Export;
using TailDb.Analyzer.Sources;
using TailDb.Analyzer.Stacks;
using TailDb.Analyzer.Tests.Recording;

namespace TailDb.Analyzer.Tests.Export;

/// <summary>The exported files carry their formats' required fields, and every slow request.</summary>
[Collection(WorkloadTracesGroup.Name)]
public sealed class ExportCommandTests(WorkloadTraces traces)
{
    private static readonly RequestSelection s_gets = new("TailDb", ["Get"]);

    [Fact]
    public void ChromiumTraceHasTheTraceEventFieldsAndEverySlowRequestAsASliceOnItsThread()
    {
        var path = Path.Combine(traces.Directory, "export.chromium.json");
        ExportCommand.Run(new ExportCommand.Settings(new FileInfo(traces.GroundTruth), s_gets, 2, null, ExportFormat.Chromium, new FileInfo(path)));
        var report = SlowestAnalysis.Run(new SlowestSettings(traces.GroundTruth, s_gets, 2, Top: 1000), new NetTraceStackSampleReader());
        using var doc = JsonDocument.Parse(File.ReadAllText(path));
        var events = doc.RootElement.GetProperty("traceEvents").EnumerateArray().ToList();
        foreach (var e in events)
        {
            Assert.Equal(JsonValueKind.String, e.GetProperty("name").ValueKind);
            var ph = e.GetProperty("ph").GetString();
            Assert.Contains(ph, new[] { "X", "i", "M" });
            Assert.True(e.GetProperty("pid").TryGetInt32(out _));
            Assert.True(e.GetProperty("tid").TryGetInt32(out _));
            if (ph != "M")
            {
                Assert.True(e.GetProperty("ts").GetDouble() >= 0);
            }

            if (ph == "X")
            {
                Assert.True(e.GetProperty("dur").GetDouble() >= 0);
            }
        }

        var slow = events.Where(e => e.GetProperty("ph").GetString() == "X" && Category(e) == "request,slow").ToList();
        Assert.Equal(report.Population.SlowCount, slow.Count);
        foreach (var row in report.Slowest)
        {
            Assert.Contains(slow, e => e.GetProperty("tid").GetInt32() == row.ThreadId && Math.Abs((e.GetProperty("ts").GetDouble() / 1000) - row.StartMs) < 0.01);
        }

        Assert.Contains(events, e => Category(e) == "gc" && e.GetProperty("tid").GetInt32() == ChromiumTraceWriter.RuntimeTrack);
        Assert.Contains(events, e => Category(e) == "sample");
    }

    private static string? Category(JsonElement e) => e.TryGetProperty("cat", out var cat) ? cat.GetString() : null;

    [Fact]
    public void SpeedscopeFileHasTheSchemaFieldsAndASlowWindowsAndAWholeRunProfile()
    {
        var path = Path.Combine(traces.Directory, "export.speedscope.json");
        ExportCommand.Run(new ExportCommand.Settings(new FileInfo(traces.GroundTruth), s_gets, 2, null, ExportFormat.Speedscope, new FileInfo(path)));
        using var doc = JsonDocument.Parse(File.ReadAllText(path));
        var root = doc.RootElement;
        Assert.Equal(SpeedscopeWriter.Schema, root.GetProperty("$schema").GetString());
        var frames = root.GetProperty("shared").GetProperty("frames").EnumerateArray().ToList();
        Assert.NotEmpty(frames);
        Assert.All(frames, f => Assert.False(string.IsNullOrEmpty(f.GetProperty("name").GetString())));
        var profiles = root.GetProperty("profiles").EnumerateArray().ToList();
        Assert.Equal(2, profiles.Count);
        foreach (var p in profiles)
        {
            Assert.Equal("sampled", p.GetProperty("type").GetString());
            Assert.Equal("milliseconds", p.GetProperty("unit").GetString());
            Assert.False(string.IsNullOrEmpty(p.GetProperty("name").GetString()));
            Assert.True(p.GetProperty("endValue").GetDouble() >= p.GetProperty("startValue").GetDouble());
            var samples = p.GetProperty("samples").EnumerateArray().ToList();
            Assert.Equal(samples.Count, p.GetProperty("weights").GetArrayLength());
            Assert.All(samples, s => Assert.All(s.EnumerateArray(), i => Assert.InRange(i.GetInt32(), 0, frames.Count - 1)));
        }

        Assert.StartsWith("slow windows", profiles[0].GetProperty("name").GetString(), StringComparison.Ordinal);
        Assert.NotEqual(0, profiles[0].GetProperty("samples").GetArrayLength());
        Assert.True(profiles[1].GetProperty("samples").GetArrayLength() > profiles[0].GetProperty("samples").GetArrayLength());
    }
}
