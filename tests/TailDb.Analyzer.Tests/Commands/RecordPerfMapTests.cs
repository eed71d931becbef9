using System.Diagnostics;
using TailDb.Analyzer.Tests.Watch;
using TailDb.Tracing.Sampling;

namespace TailDb.Analyzer.Tests.Commands;

/// <summary>
/// `record --sampler perf` and the runtime's perf maps (/tmp/perf-PID.map, which name JIT code for
/// perf): a process record attached to keeps its own, since it still runs and the runtime keeps
/// appending to the file it opened (a deleted map names nothing for any later recording of it); a
/// command record launched, with the maps turned on for it, has them deleted once it has exited.
/// </summary>
public sealed class RecordPerfMapTests : IDisposable
{
    private readonly string _directory = WatchTargets.NewDirectory("record-maps");

    public void Dispose() => Directory.Delete(_directory, recursive: true);

    [PerfFact]
    public async Task Record_attached_with_perf_leaves_the_running_process_its_perf_map()
    {
        var start = new ProcessStartInfo("dotnet") { RedirectStandardInput = true, RedirectStandardOutput = true, UseShellExecute = false };
        foreach (var argument in (string[])["exec", WatchTargets.Workload, "--requests", "20", "--heap-objects", "1000", "--start-on-stdin"])
        {
            start.ArgumentList.Add(argument);
        }

        PerfRecorder.ConfigureTarget(start); // what record does for a command it launches
        using var target = Process.Start(start)!;
        var map = $"/tmp/perf-{target.Id}.map";
        try
        {
            Assert.Equal("ready", await target.StandardOutput.ReadLineAsync().WaitAsync(TimeSpan.FromSeconds(60)));
            Assert.True(File.Exists(map), $"the runtime wrote no {map}");

            var (code, stdout, stderr) = await CommandLineTests.RunAsync(
                "record", "--pid", target.Id.ToString(System.Globalization.CultureInfo.InvariantCulture), "--sampler", "perf", "--duration", "2",
                "-o", Path.Combine(_directory, "attached.nettrace"));

            Assert.True(code == 0, $"record exited {code}: {stdout} {stderr}");
            Assert.Contains("perf wrote", stdout, StringComparison.Ordinal);
            Assert.False(target.HasExited);
            Assert.True(File.Exists(map), "record deleted the perf map of a process it attached to, which still runs");
        }
        finally
        {
            if (!target.HasExited)
            {
                target.Kill();
            }

            await target.WaitForExitAsync();
            PerfRecorder.DeletePerfMaps(target.Id);
        }
    }

    [PerfFact]
    public async Task Record_of_a_command_with_perf_deletes_the_maps_it_turned_on_once_the_command_exited()
    {
        var (code, stdout, stderr) = await CommandLineTests.RunAsync(
            "record", "--sampler", "perf", "-o", Path.Combine(_directory, "launched.nettrace"),
            "--", "dotnet", WatchTargets.Workload, "--requests", "20", "--heap-objects", "1000");

        Assert.True(code == 0, $"record exited {code}: {stdout} {stderr}");
        var pid = int.Parse(
            stdout.Split('\n').Single(l => l.StartsWith("recording process ", StringComparison.Ordinal)).Split(' ')[2],
            System.Globalization.CultureInfo.InvariantCulture);
        Assert.Contains("command exited with code 0", stdout, StringComparison.Ordinal);
        Assert.False(File.Exists($"/tmp/perf-{pid}.map"), $"record left /tmp/perf-{pid}.map behind");
    }
}
