using TailDb.Analyzer.Attribution;
using TailDb.Analyzer.Scheduling;
using TailDb.Analyzer.Sources;
using TailDb.Analyzer.Stacks;
using TailDb.Analyzer.Traces;
using TailDb.Analyzer.Watch;
using TailDb.Tracing.Sampling;

namespace TailDb.Analyzer.Tests.Watch;

/// <summary>
/// `watch --sampler perf` end to end on a real process: perf runs as a flight recorder beside the
/// EventPipe ring, a slow request fires a capture, and the capture gets its own perf file beside it,
/// which `slowest` on the capture finds alone and reads as perf's (on-CPU samples and the
/// scheduler's view of the request's threads on the capture's clock). perf is stopped when the
/// watch ends and leaves no dump behind.
/// </summary>
[Collection(RunsAlone.Name)]
public sealed class WatchPerfTests
{
    private const int Requests = 3000;
    private const int Sleeper = 2000;
    private const int HoldMs = 150;

    [PerfFact]
    public async Task ACaptureGetsAPerfFileWithSamplesAndSchedulerEventsInItsSpanAndSlowestReadsItAsPerfs()
    {
        var captures = WatchTargets.NewDirectory("perf");
        var sampler = SamplerChoice.Resolve(SamplerKind.Perf, null, out var problem);
        Assert.Null(problem);
        var settings = WatchTargets.Settings(captures, new TriggerSettings(ThresholdMs: HoldMs * 2 / 3, null, null), maxCaptures: 100, sampler: sampler);
        var output = new StringWriter();
        // Request 2,000 sleeps 150 ms inside its window, 2 s after the start; every other request spins 50 us.
        var (end, _, results) = await WatchRunner.RunAsync(settings,
            new WatchTarget.Launch(["dotnet", "exec", WatchTargets.Workload, "--requests", $"{Requests}", "--gap-us", "1000", "--heap-objects", "1000",
                "--sleep", $"{Sleeper}", "--hold-ms", $"{HoldMs}"]),
            output, interactive: false, CancellationToken.None).WaitAsync(TimeSpan.FromMinutes(3));

        var log = output.ToString();
        Assert.Equal(WatchEnd.TargetExited, end);
        Assert.Contains("sampler: perf at 999 Hz per CPU", log, StringComparison.Ordinal);
        Assert.Contains("perf ring ", log, StringComparison.Ordinal);
        // No perf is left running: none of this process's children is a perf record.
        Assert.Empty(PerfChildren());

        var sleeperBytes = 64 + Sleeper;
        var capture = results.FirstOrDefault(r => File.Exists(r.Path) && ValueBytesOf(r.Path).Contains(sleeperBytes));
        Assert.True(capture is not null, $"no capture holds the sleeping request; the watch said:\n{log}");
        Assert.True(capture.PerfProblem is null, $"the capture has no perf file: {capture.PerfProblem}");
        var perfPath = PerfFile.PathBeside(capture.Path);
        Assert.Equal(perfPath, capture.Perf?.Path);
        Assert.True(File.Exists(perfPath));
        Assert.Contains($"perf: {Path.GetFileName(perfPath)}", log, StringComparison.Ordinal);
        // Only the capture's own files are left: each dump was deleted once converted, no half-written file.
        Assert.All(Directory.GetFiles(captures), f => Assert.Matches(@"\.(nettrace|txt|json|perf\.gz)$", f));

        // The perf file on the capture's clock: samples and switches inside the capture's span.
        var view = WatchTargets.ReadWithTraceEvent(capture.Path, "TailDb");
        var perf = PerfSource.TryRead(capture.Path, TraceKind.NetTrace);
        Assert.NotNull(perf);
        var inSpan = perf.Samples.Samples.Count(s => s.TimeRelativeMSec >= view.FirstMSec && s.TimeRelativeMSec <= view.LastMSec);
        Assert.True(inSpan > 100, $"{inSpan} of {perf.Samples.Samples.Count} on-CPU samples inside the capture's {view.FirstMSec:0}-{view.LastMSec:0} ms");
        var spans = perf.Scheduler.Threads.SelectMany(t => perf.Scheduler.SpansOf(t).ToArray()).ToList();
        Assert.Contains(spans, s => s.StartMSec >= view.FirstMSec && s.StopMSec <= view.LastMSec);

        // The scheduler saw the request's sleep: one of the workload's threads was asleep for most of the sleeping request's window.
        var start = view.Requests.Single(r => r.Name.EndsWith("Start", StringComparison.Ordinal) && r.Payload.Contains($"keyHash={(long)unchecked((uint)(Sleeper * 2654435761L))}", StringComparison.Ordinal));
        var stop = view.Requests.Single(r => r.Name.EndsWith("Stop", StringComparison.Ordinal) && r.Payload.Contains($"valueBytes={sleeperBytes}", StringComparison.Ordinal));
        var asleep = perf.Scheduler.Threads.Max(t =>
        {
            Span<double> byState = stackalloc double[Enum.GetValues<RunState>().Length];
            perf.Scheduler.Overlap(t, start.MSec, stop.MSec, byState);
            return byState[(int)RunState.Sleeping];
        });
        Assert.True(asleep >= HoldMs * 0.8, $"the sleeping request's thread was asleep {asleep:0.0} ms of its {stop.MSec - start.MSec:0.0} ms");

        // `slowest` on the capture alone finds the perf file and says its samples are perf's.
        var report = SlowestAnalysis.Run(new SlowestSettings(capture.Path, RequestSelection.TailDb, 1, HoldMs * 2.0 / 3, 10), new NetTraceStackSampleReader());
        Assert.Contains("by perf at 999 Hz per CPU", report.Trace.Stacks, StringComparison.Ordinal);
        Assert.Contains(report.Notes, n => n.StartsWith("perf samples a thread only while it runs", StringComparison.Ordinal));
        // The default ring (32 MiB per CPU for the 10 s window) held every CPU's events back to before the first request.
        Assert.True(perf.CoveredFromMSec < view.Requests.Min(r => r.MSec), $"perf covers every CPU from {perf.CoveredFromMSec:0.#} ms only");
        Assert.DoesNotContain(report.Notes, n => n.Contains("covers every CPU", StringComparison.Ordinal));
        Console.WriteLine(LiveView.Describe(capture));
        Directory.Delete(captures, recursive: true);
    }

    [PerfFact]
    public async Task ACaptureWhosePerfDumpFailsIsStillWrittenAndItsLineSaysWhyItHasNoPerfFile()
    {
        var captures = WatchTargets.NewDirectory("perf-dead");
        var settings = WatchTargets.Settings(captures, new TriggerSettings(ThresholdMs: HoldMs * 2 / 3, null, null), maxCaptures: 100,
            sampler: SamplerChoice.Resolve(SamplerKind.Perf, null, out _));
        var output = new SynchronizedLog();
        var watch = WatchRunner.RunAsync(settings,
            new WatchTarget.Launch(["dotnet", "exec", WatchTargets.Workload, "--requests", $"{Requests}", "--gap-us", "1000", "--heap-objects", "1000",
                "--sleep", $"{Sleeper}", "--hold-ms", $"{HoldMs}"]),
            output, interactive: false, CancellationToken.None);
        // perf dies once it is up (its sampler line is printed after it acknowledged), before the target's first request.
        var perf = await WaitForPerfAsync(output, watch);
        System.Diagnostics.Process.GetProcessById(perf).Kill();
        var (end, _, results) = await watch.WaitAsync(TimeSpan.FromMinutes(3));

        Assert.Equal(WatchEnd.TargetExited, end);
        var capture = results.FirstOrDefault(r => r.Written && ValueBytesOf(r.Path).Contains(64 + Sleeper));
        Assert.True(capture is not null, $"no capture holds the sleeping request; the watch said:\n{output}");
        Assert.True(File.Exists(capture.Path));
        Assert.Null(capture.Perf);
        Assert.False(File.Exists(PerfFile.PathBeside(capture.Path)));
        Assert.StartsWith("perf record exited", capture.PerfProblem, StringComparison.Ordinal);
        Assert.Contains(output.ToString().Split('\n'), l => l.StartsWith($"capture {Path.GetFileName(capture.Path)}", StringComparison.Ordinal) && l.Contains("; no perf file: perf record exited", StringComparison.Ordinal));
        // Its report still ran, on the EventPipe events alone.
        Assert.True(File.Exists(Path.ChangeExtension(capture.Path, ".json")));
        Directory.Delete(captures, recursive: true);
    }

    [PerfFact]
    public async Task AWatchStoppedByCtrlCStopsPerfAndDeletesWhatPerfWrote()
    {
        var captures = WatchTargets.NewDirectory("perf-cancel");
        var settings = WatchTargets.Settings(captures, new TriggerSettings(ThresholdMs: 10_000, null, null),
            sampler: SamplerChoice.Resolve(SamplerKind.Perf, null, out _));
        var output = new SynchronizedLog();
        using var stop = new CancellationTokenSource();
        var watch = WatchRunner.RunAsync(settings,
            new WatchTarget.Launch(["dotnet", "exec", WatchTargets.Workload, "--requests", "1000000", "--gap-us", "1000", "--heap-objects", "1000"]),
            output, interactive: false, stop.Token);
        int perf, guard;
        string dumps;
        try
        {
            perf = await WaitForPerfAsync(output, watch);
            // Where its ring's dumps would go: the directory after -o on its command line.
            var arguments = File.ReadAllText($"/proc/{perf}/cmdline").Split('\0');
            dumps = Path.GetDirectoryName(arguments[Array.IndexOf(arguments, "-o") + 1])!;
            Assert.True(Directory.Exists(dumps));
            await Task.Delay(TimeSpan.FromSeconds(2));
            guard = Assert.Single(ChildrenOf(perf));
        }
        finally
        {
            // Ctrl-C, also when an assertion above failed: the watch's target runs for minutes otherwise.
            await stop.CancelAsync();
        }

        var (end, _, _) = await watch.WaitAsync(TimeSpan.FromMinutes(2));

        Assert.Equal(WatchEnd.Cancelled, end);
        Assert.Empty(PerfChildren());
        Assert.False(Directory.Exists($"/proc/{perf}"), $"perf {perf} still runs");
        Assert.False(Directory.Exists($"/proc/{guard}"), $"perf's workload {guard} still runs");
        Assert.False(Directory.Exists(dumps), $"{dumps} is left behind");
        Directory.Delete(captures, recursive: true);
    }

    [PerfFact]
    public async Task PerfStopsByItselfWhenTheWatchProcessIsKilled()
    {
        var captures = WatchTargets.NewDirectory("perf-killed");
        var start = new System.Diagnostics.ProcessStartInfo(TailDb.GcModes.GcLaunch.DotnetHostPath()) { RedirectStandardOutput = true, RedirectStandardError = true, RedirectStandardInput = true };
        foreach (var argument in (string[])["exec", Path.Combine(AppContext.BaseDirectory, "TailDb.Analyzer.dll"), "watch", "--sampler", "perf", "--threshold-ms", "10000",
            "--captures", captures, "--", "dotnet", "exec", WatchTargets.Workload, "--requests", "1000000", "--gap-us", "1000", "--heap-objects", "1000"])
        {
            start.ArgumentList.Add(argument);
        }

        using var watch = System.Diagnostics.Process.Start(start)!;
        var log = new SynchronizedLog();
        watch.OutputDataReceived += (_, e) => log.WriteLine(e.Data);
        watch.ErrorDataReceived += (_, e) => log.WriteLine(e.Data);
        watch.BeginOutputReadLine();
        watch.BeginErrorReadLine();
        int perf = 0, target = 0;
        var deadline = DateTime.UtcNow + TimeSpan.FromSeconds(90);
        while (perf == 0 || target == 0 || !log.ToString().Contains("watching ", StringComparison.Ordinal))
        {
            Assert.False(watch.HasExited, $"the watch exited: {log}");
            Assert.True(DateTime.UtcNow < deadline, $"no perf and target within 90 s: {log}");
            await Task.Delay(100);
            var children = ChildrenOf(watch.Id);
            perf = ChildrenOf(watch.Id, "perf").FirstOrDefault();
            target = children.FirstOrDefault(c => c != perf);
        }

        var arguments = File.ReadAllText($"/proc/{perf}/cmdline").Split('\0');
        var dumps = Path.GetDirectoryName(arguments[Array.IndexOf(arguments, "-o") + 1])!;
        // SIGKILL: no finally block of the watch runs; only perf's guard can stop it. (Not WaitForExit: it waits for the
        // end of the watch's output, which its orphaned target holds open.)
        watch.Kill();
        try
        {
            var stopped = DateTime.UtcNow + TimeSpan.FromSeconds(30);
            while (Directory.Exists($"/proc/{perf}") && !File.ReadAllText($"/proc/{perf}/stat").Contains(") Z ", StringComparison.Ordinal) && DateTime.UtcNow < stopped)
            {
                await Task.Delay(100);
            }

            Assert.True(!Directory.Exists($"/proc/{perf}") || File.ReadAllText($"/proc/{perf}/stat").Contains(") Z ", StringComparison.Ordinal),
                $"perf {perf} still runs 30 s after its watch was killed");
            Console.WriteLine($"perf {perf} stopped {30 - (stopped - DateTime.UtcNow).TotalSeconds:0.0} s after its watch {watch.Id} was killed (target {target})");
        }
        finally
        {
            // What a killed watch leaves and this test cleans: its target and the target's perf maps, and perf's last dump.
            KillIfRunning(target);
            KillIfRunning(perf);
            PerfRecorder.DeletePerfMaps(target);
            if (Directory.Exists(dumps))
            {
                Directory.Delete(dumps, recursive: true);
            }

            Directory.Delete(captures, recursive: true);
        }
    }

    private static void KillIfRunning(int pid)
    {
        try
        {
            using var process = System.Diagnostics.Process.GetProcessById(pid);
            process.Kill();
        }
        catch (Exception e) when (e is ArgumentException or InvalidOperationException or System.ComponentModel.Win32Exception)
        {
            // Already gone.
        }
    }

    /// <summary>A log the watch writes from its threads while the test reads it.</summary>
    private sealed class SynchronizedLog : TextWriter
    {
        private readonly StringWriter _text = new();

        public override System.Text.Encoding Encoding => _text.Encoding;

        public override void Write(char value)
        {
            lock (_text)
            {
                _text.Write(value);
            }
        }

        public override void Write(string? value)
        {
            lock (_text)
            {
                _text.Write(value);
            }
        }

        public override void WriteLine(string? value)
        {
            lock (_text)
            {
                _text.WriteLine(value);
            }
        }

        public override string ToString()
        {
            lock (_text)
            {
                return _text.ToString();
            }
        }
    }

    /// <summary>The watch's perf, once the watch said it records (after perf acknowledged its enable).</summary>
    private static async Task<int> WaitForPerfAsync(TextWriter output, Task watch)
    {
        var deadline = DateTime.UtcNow + TimeSpan.FromSeconds(60);
        while (true)
        {
            if (output.ToString()!.Contains("sampler: perf", StringComparison.Ordinal) && PerfChildren() is [var perf])
            {
                return perf;
            }

            Assert.False(watch.IsCompleted, $"the watch ended before perf ran: {output}");
            Assert.True(DateTime.UtcNow < deadline, $"no perf within 60 s: {output}");
            await Task.Delay(50);
        }
    }

    private static HashSet<long> ValueBytesOf(string capture) =>
        [.. WatchTargets.ReadWithTraceEvent(capture, "TailDb").Requests
            .Select(r => r.Payload.Split(' ').FirstOrDefault(p => p.StartsWith("valueBytes=", StringComparison.Ordinal)))
            .Where(p => p is not null).Select(p => long.Parse(p!["valueBytes=".Length..], System.Globalization.CultureInfo.InvariantCulture))];

    /// <summary>This process's children that are perf.</summary>
    private static List<int> PerfChildren() => ChildrenOf(Environment.ProcessId, "perf");

    /// <summary>The children of <paramref name="parent"/> (named <paramref name="name"/>, when given): /proc's parent pid and name of every process.</summary>
    private static List<int> ChildrenOf(int parent, string? name = null)
    {
        var children = new List<int>();
        foreach (var directory in Directory.GetDirectories("/proc"))
        {
            if (!int.TryParse(Path.GetFileName(directory), out var pid))
            {
                continue;
            }

            try
            {
                var status = File.ReadAllLines(Path.Combine(directory, "status"));
                var command = status.FirstOrDefault(l => l.StartsWith("Name:", StringComparison.Ordinal))?[5..].Trim();
                var parentId = status.FirstOrDefault(l => l.StartsWith("PPid:", StringComparison.Ordinal))?[5..].Trim();
                if ((name is null || command == name) && parentId == $"{parent}")
                {
                    children.Add(pid);
                }
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException)
            {
                // The process ended meanwhile.
            }
        }

        return children;
    }
}
