using System.Diagnostics;
using System.Globalization;
using TailDb.Analyzer.Sources;
using TailDb.Analyzer.Watch;
using TailDb.GcModes;
using TailDb.TestSupport.Processes;

namespace TailDb.Analyzer.Tests.Watch;

/// <summary>
/// `TailDb.Analyzer watch` as a user runs it, a process of its own: attached by --pid to a running
/// workload, or following one by --name across a restart; its memory read from the kernel
/// (/proc/PID/status VmHWM, the peak resident set), and ended by SIGTERM or Ctrl-C (SIGINT).
/// </summary>
[Collection(RunsAlone.Name)]
public sealed class WatchProcessTests
{
    private const string WorkloadName = "TailDb.Analyzer.Tests.Workload";

    /// <summary>
    /// A ring of 24 MiB filled, then one capture of all of it and its report. The report's analysis
    /// takes about 9x the capture (it ran in the watch process before: 593-631 MB with a 64 MiB ring);
    /// in its child process it does not count here.
    /// </summary>
    [Fact]
    public async Task AnAttachedWatchCapturingAFullRingStaysWithinMaxBytesPlusItsConstantAndEndsOnSigterm()
    {
        const long maxBytes = 24L << 20;
        const int requests = 1_500_000;
        var captures = WatchTargets.NewDirectory("memory");
        // The one trigger: a 3 s sleep near the end (a scheduler stall of 2 s would also be one, and would come too early).
        using var workload = Workload("--requests", $"{requests}", "--gap-us", "0", "--work-us", "0", "--sleep", $"{requests - 1000}",
            "--hold-ms", "3000", "--heap-objects", "1000", "--start-on-stdin", "--wait-stdin");
        await workload.Lines.WaitForAsync(l => l == "ready", TimeSpan.FromMinutes(2));
        using var watch = Analyzer("watch", "--pid", $"{workload.Process.Id}", "--threshold-ms", "2000", "--max-captures", "1", "--window", "600",
            "--max-bytes", $"{maxBytes}", "--margin-ms", "200", "--captures", captures);
        await watch.Lines.WaitForAsync(l => l.StartsWith("watching ", StringComparison.Ordinal), TimeSpan.FromMinutes(1));
        await workload.Process.StandardInput.WriteLineAsync("go");

        var captured = await watch.Lines.WaitForAsync(l => l.StartsWith("capture ", StringComparison.Ordinal), TimeSpan.FromMinutes(10));
        // The peak so far, every capture written and reported; the watch is still running.
        var peak = PeakResidentBytes(watch.Process.Id);
        Signal("TERM", watch.Process.Id);
        await watch.Process.WaitForExitAsync().WaitAsync(TimeSpan.FromMinutes(2));
        workload.Process.StandardInput.Close();
        await workload.Process.WaitForExitAsync().WaitAsync(TimeSpan.FromMinutes(1));

        var capture = Assert.Single(Directory.GetFiles(captures, "*.nettrace"));
        var bytes = new FileInfo(capture).Length;
        Console.WriteLine(string.Create(CultureInfo.InvariantCulture,
            $"watch peak resident {peak / 1048576.0:F1} MiB (VmHWM) with --max-bytes {maxBytes / 1048576.0:F0} MiB, capture {bytes / 1048576.0:F1} MiB; {captured}"));
        Assert.True(bytes >= maxBytes * 9 / 10, $"the ring was not full when the capture fired: {bytes:N0} B of {maxBytes:N0}");
        Assert.DoesNotContain(ReportChild.FailedPrefix, captured, StringComparison.Ordinal);
        Assert.True(File.Exists(Path.ChangeExtension(capture, ".txt")) && File.Exists(Path.ChangeExtension(capture, ".json")));
        Assert.True(peak <= maxBytes + WatchSettings.MemoryConstantBytes,
            $"the watch process peaked at {peak / 1048576.0:F1} MiB, over --max-bytes {maxBytes / 1048576.0:F0} MiB + {WatchSettings.MemoryConstantBytes / 1048576} MiB");

        Assert.Equal(0, watch.Process.ExitCode);
        Assert.Contains(watch.Lines.All, l => l.StartsWith("watch ended (stopped)", StringComparison.Ordinal));
        Assert.Contains(watch.Lines.All, l => l.StartsWith("watch process peak memory", StringComparison.Ordinal));
        Assert.Empty(Directory.GetFiles(captures, "*.partial"));
        WatchCaptureTests.AssertSlowestReads(capture, RequestSelection.TailDb);
        Directory.Delete(captures, recursive: true);
    }

    /// <summary>
    /// --name: the first process of that name is watched until it exits, then the next one (a
    /// restart) from its first request; Ctrl-C (SIGINT) ends the watch between or during sessions.
    /// </summary>
    [Fact]
    public async Task ANamedWatchFollowsTheTargetAcrossARestartAndEndsOnCtrlC()
    {
        Assert.Null(InheritedSignals.WhySigIntIsNotDelivered());
        var captures = WatchTargets.NewDirectory("restart");
        using var watch = Analyzer("watch", "--name", WorkloadName, "--threshold-ms", "1000", "--captures", captures);
        await watch.Lines.WaitForAsync(l => l.StartsWith("waiting for a process named", StringComparison.Ordinal), TimeSpan.FromMinutes(1));

        var pids = new List<int>();
        foreach (var requests in new[] { 300, 500 })
        {
            using var workload = Workload("--requests", $"{requests}", "--heap-objects", "1000", "--start-on-stdin", "--wait-stdin");
            pids.Add(workload.Process.Id);
            await workload.Lines.WaitForAsync(l => l == "ready", TimeSpan.FromMinutes(2));
            await watch.Lines.WaitForAsync(l => l.StartsWith("watching ", StringComparison.Ordinal) && l.Contains($"(pid {workload.Process.Id})", StringComparison.Ordinal), TimeSpan.FromMinutes(1));
            await workload.Process.StandardInput.WriteLineAsync("go");
            await workload.Lines.WaitForAsync(l => l.StartsWith("done ", StringComparison.Ordinal), TimeSpan.FromMinutes(2));
            workload.Process.StandardInput.Close();
            await workload.Process.WaitForExitAsync().WaitAsync(TimeSpan.FromMinutes(1));
            var ended = await watch.Lines.WaitForAsync(l => l.StartsWith($"watch ended (process {workload.Process.Id} exited)", StringComparison.Ordinal), TimeSpan.FromMinutes(1));
            // Every request of each process, so the session was up before its first one.
            Assert.Contains($": {requests:N0} requests,", ended, StringComparison.Ordinal);
        }

        // Between sessions now (waiting for a third process of that name, or about to).
        Signal("INT", watch.Process.Id);
        await watch.Process.WaitForExitAsync().WaitAsync(TimeSpan.FromMinutes(2));

        Assert.Equal(0, watch.Process.ExitCode);
        Assert.Contains(watch.Lines.All, l => l.StartsWith("watch process peak memory", StringComparison.Ordinal));
        Assert.Empty(Directory.GetFiles(captures, "*.partial"));
        Directory.Delete(captures, recursive: true);
    }

    /// <summary>The built analyzer, from this output folder.</summary>
    private static Child Analyzer(params string[] arguments)
    {
        var start = new ProcessStartInfo(GcLaunch.DotnetHostPath()) { RedirectStandardOutput = true, RedirectStandardError = true, RedirectStandardInput = true };
        start.ArgumentList.Add("exec");
        start.ArgumentList.Add(Path.Combine(AppContext.BaseDirectory, "TailDb.Analyzer.dll"));
        foreach (var argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        return new Child(start);
    }

    /// <summary>The ground-truth workload through its own executable, so its process is named after it (--name finds it).</summary>
    private static Child Workload(params string[] arguments)
    {
        var start = new ProcessStartInfo(Path.Combine(AppContext.BaseDirectory, WorkloadName))
        {
            RedirectStandardOutput = true, RedirectStandardError = true, RedirectStandardInput = true,
        };
        // The executable looks for the runtime here (the install may not be where it looks by default).
        start.Environment["DOTNET_ROOT"] = Path.GetDirectoryName(GcLaunch.DotnetHostPath());
        foreach (var argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        return new Child(start);
    }

    private static void Signal(string signal, int pid)
    {
        using var kill = Process.Start("kill", [$"-{signal}", pid.ToString(CultureInfo.InvariantCulture)]);
        kill.WaitForExit();
        Assert.Equal(0, kill.ExitCode);
    }

    /// <summary>VmHWM: the kernel's high-water mark of the process's resident set.</summary>
    private static long PeakResidentBytes(int pid)
    {
        var line = File.ReadLines($"/proc/{pid}/status").First(l => l.StartsWith("VmHWM:", StringComparison.Ordinal));
        return long.Parse(line["VmHWM:".Length..].Trim().Split(' ')[0], CultureInfo.InvariantCulture) * 1024;
    }

    /// <summary>A child process whose output lines are collected as they come; killed if still running at the end.</summary>
    private sealed class Child : IDisposable
    {
        public Child(ProcessStartInfo start)
        {
            start.UseShellExecute = false;
            Process = new Process { StartInfo = start };
            Process.OutputDataReceived += (_, e) => Lines.Add(e.Data);
            Process.ErrorDataReceived += (_, e) => Lines.Add(e.Data is null ? null : "stderr: " + e.Data);
            Process.Start();
            Process.BeginOutputReadLine();
            Process.BeginErrorReadLine();
        }

        public Process Process { get; }

        public OutputLines Lines { get; } = new();

        public void Dispose()
        {
            if (!Process.HasExited)
            {
                Process.Kill(entireProcessTree: true);
            }

            Process.Dispose();
        }
    }

    private sealed class OutputLines
    {
        private readonly List<string> _lines = [];
        private TaskCompletionSource _changed = new(TaskCreationOptions.RunContinuationsAsynchronously);

        public IReadOnlyList<string> All
        {
            get
            {
                lock (_lines)
                {
                    return [.. _lines];
                }
            }
        }

        public void Add(string? line)
        {
            if (line is null)
            {
                return;
            }

            TaskCompletionSource changed;
            lock (_lines)
            {
                _lines.Add(line);
                changed = _changed;
                _changed = new(TaskCreationOptions.RunContinuationsAsynchronously);
            }

            changed.TrySetResult();
        }

        /// <summary>The first line that matches; fails with every line seen when none comes in time.</summary>
        public async Task<string> WaitForAsync(Func<string, bool> match, TimeSpan timeout)
        {
            using var deadline = new CancellationTokenSource(timeout);
            while (true)
            {
                Task changed;
                lock (_lines)
                {
                    var found = _lines.FirstOrDefault(match);
                    if (found is not null)
                    {
                        return found;
                    }

                    changed = _changed.Task;
                }

                try
                {
                    await changed.WaitAsync(deadline.Token);
                }
                catch (OperationCanceledException)
                {
                    Assert.Fail($"no such line within {timeout}; lines so far:\n{string.Join("\n", All)}");
                }
            }
        }
    }
}
