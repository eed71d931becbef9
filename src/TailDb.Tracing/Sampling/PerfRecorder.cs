using System.Diagnostics;
using System.Globalization;
using System.IO.Compression;
using System.Runtime.InteropServices;

namespace TailDb.Tracing.Sampling;

/// <summary>
/// A system-wide <c>perf record</c> beside an EventPipe session: CPU samples with call chains
/// (cpu-clock, so it works in VMs without hardware counters), the scheduler's switches and
/// wake-ups (who had a CPU, who waited for one) and major page faults, on CLOCK_MONOTONIC so its
/// times line up with the trace's. It starts with its events disabled and is enabled through its
/// control FIFO; <see cref="StartAsync"/> returns only after perf acknowledged, so the target's
/// first request is covered. <see cref="StopAsync"/> turns perf.data into <see cref="PerfFile"/>
/// (symbols resolved here, while the binaries and the runtime's perf map exist) and deletes the rest.
/// As a flight recorder (<see cref="StartRingAsync"/>, for <c>watch</c>) perf keeps a ring per CPU
/// in kernel memory (<see cref="PerfRing"/>) and writes it out only when <see cref="DumpAsync"/>
/// asks, each dump turned into a <see cref="PerfFile"/> the same way.
/// </summary>
public sealed class PerfRecorder : IAsyncDisposable
{
    private readonly Process _perf;
    private readonly string _dataPath;
    private readonly string _fifoDirectory;
    private readonly FileStream _control;
    private readonly FileStream _ack;
    private readonly Stopwatch _elapsed = Stopwatch.StartNew();
    private readonly PerfOutput _output;
    private readonly SemaphoreSlim _dumping = new(1, 1);

    private PerfRecorder(Process perf, PerfOutput output, string dataPath, string fifoDirectory, FileStream control, FileStream ack, int rateHz, PerfRing? ring)
    {
        _perf = perf;
        _output = output;
        _dataPath = dataPath;
        _fifoDirectory = fifoDirectory;
        _control = control;
        _ack = ack;
        RateHz = rateHz;
        Ring = ring;
    }

    public int RateHz { get; }

    /// <summary>The flight recorder's ring, or null when perf writes everything to perf.data.</summary>
    public PerfRing? Ring { get; }

    /// <summary>
    /// The runtime writes /tmp/perf-PID.map (JIT code addresses to method names, with their tier)
    /// only when asked, and with W^X on its JIT code runs from a double mapping (/memfd:doublemapper)
    /// that perf cannot name: both are set for the traced process. W^X off changes the process a
    /// little (JIT writes no longer flip mappings); reports say the sampler was perf, and docs say this.
    /// </summary>
    public static void ConfigureTarget(ProcessStartInfo startInfo)
    {
        ArgumentNullException.ThrowIfNull(startInfo);
        startInfo.Environment["DOTNET_PerfMapEnabled"] = "1";
        startInfo.Environment["DOTNET_EnableWriteXorExecute"] = "0";
    }

    public static string? FindTool()
    {
        foreach (string directory in (Environment.GetEnvironmentVariable("PATH") ?? "/usr/bin:/bin").Split(':', StringSplitOptions.RemoveEmptyEntries))
        {
            string candidate = Path.Combine(directory, "perf");
            if (File.Exists(candidate))
            {
                return candidate;
            }
        }

        return null;
    }

    /// <exception cref="InvalidOperationException">perf did not start or did not acknowledge within <paramref name="timeout"/>.</exception>
    public static Task<PerfRecorder> StartAsync(string tracePath, int rateHz, TimeSpan timeout, CancellationToken cancellationToken = default) =>
        StartAsync(Path.ChangeExtension(tracePath, null) + ".perf.data", rateHz, null, timeout, cancellationToken);

    /// <summary>
    /// perf as a flight recorder: nothing is written until <see cref="DumpAsync"/>. Its dumps go to a
    /// directory of its own, deleted with it, each removed as soon as its perf file is written.
    /// </summary>
    /// <exception cref="InvalidOperationException">perf did not start or did not acknowledge within <paramref name="timeout"/>.</exception>
    public static Task<PerfRecorder> StartRingAsync(int rateHz, PerfRing ring, TimeSpan timeout, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(ring);
        return StartAsync(null, rateHz, ring, timeout, cancellationToken);
    }

    /// <param name="dataPath">perf.data's path; null for a ring, whose dumps go beside its FIFOs.</param>
    private static async Task<PerfRecorder> StartAsync(string? dataPath, int rateHz, PerfRing? ring, TimeSpan timeout, CancellationToken cancellationToken)
    {
        string tool = FindTool() ?? throw new InvalidOperationException("no perf on PATH");
        string fifos = Directory.CreateTempSubdirectory("taildb-perf-").FullName;
        string control = Path.Combine(fifos, "control");
        string ack = Path.Combine(fifos, "ack");
        if (mkfifo(control, 0x180) != 0 || mkfifo(ack, 0x180) != 0)
        {
            Directory.Delete(fifos, recursive: true);
            throw new InvalidOperationException($"perf: cannot make its control FIFOs in {fifos} (errno {Marshal.GetLastPInvokeError()})");
        }

        dataPath ??= Path.Combine(fifos, "ring.perf.data");
        var start = new ProcessStartInfo(tool)
        {
            RedirectStandardError = true,
            RedirectStandardOutput = true,
            // A ring's guard reads perf's stdin (RecordArguments): the pipe stays open while this process lives.
            RedirectStandardInput = ring is not null,
            UseShellExecute = false,
        };
        foreach (string argument in RecordArguments(dataPath, rateHz, control, ack, ring))
        {
            start.ArgumentList.Add(argument);
        }

        Process perf = Process.Start(start) ?? throw new InvalidOperationException("perf did not start");
        var output = new PerfOutput(perf.StandardError);
        FileStream? controlStream = null, ackStream = null;
        try
        {
            // perf opens both FIFOs at start-up; opening a FIFO blocks until the other side does, so off this thread, with a limit.
            using var limit = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
            limit.CancelAfter(timeout);
            Task<FileStream> opening = Task.Run(() => new FileStream(control, FileMode.Open, FileAccess.Write, FileShare.ReadWrite, 1, FileOptions.None), CancellationToken.None);
            controlStream = await opening.WaitAsync(limit.Token).ConfigureAwait(false);
            ackStream = await Task.Run(() => new FileStream(ack, FileMode.Open, FileAccess.Read, FileShare.ReadWrite, 1, FileOptions.None), CancellationToken.None).WaitAsync(limit.Token).ConfigureAwait(false);
            var recorder = new PerfRecorder(perf, output, dataPath, fifos, controlStream, ackStream, rateHz, ring);
            await recorder.CommandAsync("enable", limit.Token).ConfigureAwait(false);
            return recorder;
        }
        catch (Exception e) when (e is OperationCanceledException or IOException)
        {
            string why = perf.HasExited ? await output.EndAsync(TimeSpan.FromSeconds(5)).ConfigureAwait(false) : "no acknowledgement";
            TryKill(perf);
            perf.Dispose();
            controlStream?.Dispose();
            ackStream?.Dispose();
            Directory.Delete(fifos, recursive: true);
            TryDelete(dataPath);
            throw new InvalidOperationException($"perf record did not start: {why}", e);
        }
    }

    internal static IEnumerable<string> RecordArguments(string dataPath, int rateHz, string control, string ack, PerfRing? ring = null) =>
    [
        // The rate goes on cpu-clock alone: a global -F would also turn the scheduler's tracepoints into
        // ~1 kHz samples of themselves (found: 813 switches recorded in a 10 s run), where every one is needed.
        "record", "--all-cpus", "-k", "CLOCK_MONOTONIC", "-g",
        "-e", $"cpu-clock/freq={rateHz.ToString(CultureInfo.InvariantCulture)}/",
        // No call chains on the scheduler's events: they are many, and the switch's own stack is always __schedule.
        "-e", "sched:sched_switch/call-graph=no/",
        "-e", "sched:sched_wakeup/call-graph=no/",
        "-e", "major-faults/period=1/",
        "--delay", "-1", "--control", $"fifo:{control},{ack}",
        // A ring: each CPU's events overwrite its oldest in kernel memory until SIGUSR2 dumps them to a
        // file of their own (perf.data.<timestamp>), which perf names on stderr, so not --quiet there.
        .. ring is null
            ? (string[])["--quiet"]
            : ["--overwrite", "--switch-output=signal", "-m", ring.Pages.ToString(CultureInfo.InvariantCulture)],
        "-o", dataPath,
        // A ring runs as long as a watch, which may die without stopping it (SIGKILL, a crashed host): perf records
        // system-wide until its workload exits, and this one exits when perf's stdin, our pipe, closes with us.
        .. ring is null ? (string[])[] : ["--", "sh", "-c", "read _"],
    ];

    /// <summary>
    /// Stops perf, writes <see cref="PerfFile.PathBeside"/> for <paramref name="tracePath"/> with
    /// <paramref name="targetPid"/> in its header, and deletes perf.data and the target's perf maps.
    /// </summary>
    public async Task<PerfRecording> StopAsync(string tracePath, int targetPid, TimeSpan timeout)
    {
        double seconds = _elapsed.Elapsed.TotalSeconds;
        TimeSpan recordCpu = CpuOf(_perf.Id);
        await InterruptAsync(timeout).ConfigureAwait(false);
        if (!File.Exists(_dataPath))
        {
            throw new InvalidOperationException($"perf record wrote no data: {await _output.EndAsync(TimeSpan.FromSeconds(5)).ConfigureAwait(false)}");
        }

        string output = PerfFile.PathBeside(tracePath);
        (TimeSpan scriptCpu, string? cut) = await ScriptAsync(_dataPath, output, targetPid, RateHz, timeout).ConfigureAwait(false);
        long dataBytes = new FileInfo(_dataPath).Length;
        TryDelete(_dataPath);
        return new PerfRecording(output, new FileInfo(output).Length, dataBytes, seconds, recordCpu, scriptCpu, RateHz) { Cut = cut };
    }

    /// <summary>
    /// A flight recorder's dump: SIGUSR2 makes perf write its rings out (what each CPU's ring holds
    /// now, back to the previous dump at most), the dump becomes <see cref="PerfFile.PathBeside"/>
    /// <paramref name="tracePath"/> with <paramref name="targetPid"/> in its header, and is deleted.
    /// The signal goes out before this returns when no other dump is under way; dumps are one at a
    /// time, since perf folds a signal that arrives before it handled the one before into that dump.
    /// </summary>
    /// <exception cref="InvalidOperationException">Not a ring, perf has exited, or the dump or its conversion failed or took longer than <paramref name="timeout"/>.</exception>
    public async Task<PerfRecording> DumpAsync(string tracePath, int targetPid, TimeSpan timeout)
    {
        if (Ring is null)
        {
            throw new InvalidOperationException("perf records to a file, not a ring: nothing to dump");
        }

        string dump;
        TimeSpan recordCpu;
        await _dumping.WaitAsync().ConfigureAwait(false);
        try
        {
            if (_perf.HasExited)
            {
                throw new InvalidOperationException($"perf record exited ({_perf.ExitCode}): {_output.Text}");
            }

            while (_output.TryTakeStaleDump(out string stale))
            {
                TryDelete(stale);
            }

            recordCpu = CpuOf(_perf.Id);
            if (kill(_perf.Id, SigUsr2) != 0)
            {
                throw new InvalidOperationException($"perf record could not be signalled (errno {Marshal.GetLastPInvokeError()})");
            }

            using var limit = new CancellationTokenSource(timeout);
            try
            {
                dump = await _output.NextDumpAsync(limit.Token).ConfigureAwait(false);
            }
            catch (OperationCanceledException)
            {
                throw new InvalidOperationException($"perf record did not dump its ring within {timeout.TotalSeconds:0} s of SIGUSR2");
            }
            catch (System.Threading.Channels.ChannelClosedException)
            {
                throw new InvalidOperationException($"perf record exited instead of dumping its ring: {_output.Text}");
            }
        }
        finally
        {
            _dumping.Release();
        }

        try
        {
            string output = PerfFile.PathBeside(tracePath);
            long dataBytes = new FileInfo(dump).Length;
            (TimeSpan scriptCpu, string? cut) = await ScriptAsync(dump, output, targetPid, RateHz, timeout).ConfigureAwait(false);
            return new PerfRecording(output, new FileInfo(output).Length, dataBytes, _elapsed.Elapsed.TotalSeconds, recordCpu, scriptCpu, RateHz) { Cut = cut };
        }
        finally
        {
            TryDelete(dump);
        }
    }

    /// <summary>
    /// The runtime's perf maps for <paramref name="pid"/> (it writes them with DOTNET_PerfMapEnabled=1
    /// and never removes them): for whoever launched the process with them on, once it has exited.
    /// Never for a process still running: the runtime keeps appending to the file it opened, so a
    /// deleted map names nothing for any later recording of that process (an attached `record --pid`
    /// used to delete a live server's maps, and every recording after it read its JIT frames as
    /// addresses).
    /// </summary>
    public static void DeletePerfMaps(int pid)
    {
        TryDelete($"/tmp/perf-{pid}.map");
        TryDelete($"/tmp/perfinfo-{pid}.map");
    }

    /// <summary>
    /// SIGINT, as Ctrl-C stops perf: it writes what it holds, ends its workload (a ring's guard) and
    /// exits; killed past <paramref name="timeout"/>.
    /// </summary>
    private async Task InterruptAsync(TimeSpan timeout)
    {
        if (Ring is not null)
        {
            // The guard's end: it exits (perf would stop on that alone), and a guard left by a perf that
            // died some other way (killed) does not hold perf's stderr open, which EndAsync reads to its end.
            try
            {
                _perf.StandardInput.Close();
            }
            catch (IOException)
            {
                // Closed by its reader's end already.
            }
        }

        if (!_perf.HasExited)
        {
            _ = kill(_perf.Id, SigInt);
        }

        using var limit = new CancellationTokenSource(timeout);
        try
        {
            await _perf.WaitForExitAsync(limit.Token).ConfigureAwait(false);
        }
        catch (OperationCanceledException)
        {
            TryKill(_perf);
            throw new InvalidOperationException($"perf record did not stop within {timeout.TotalSeconds:0} s of SIGINT");
        }
    }

    /// <summary>
    /// `perf script` of <paramref name="dataPath"/> into <paramref name="output"/>, gzip-compressed
    /// after the header; written under a temporary name and renamed when whole, so a perf file
    /// beside a trace is never half-written. perf script stops at the first sample it cannot parse
    /// (a damaged record in perf.data; seen once in about ten CI runs here, as in other projects'
    /// CIs) and exits non-zero; what it wrote before is whole (it flushes events in time order), so
    /// that is kept, its header marked cut (<see cref="PerfFileHeader.Cut"/>), and the reason returned.
    /// </summary>
    /// <returns>perf script's CPU time, and perf's words when it stopped at a damaged record.</returns>
    internal static async Task<(TimeSpan Cpu, string? Cut)> ScriptAsync(string dataPath, string output, int targetPid, int rateHz, TimeSpan timeout)
    {
        var start = new ProcessStartInfo(FindTool() ?? throw new InvalidOperationException("no perf on PATH"))
        {
            RedirectStandardError = true,
            RedirectStandardOutput = true,
            UseShellExecute = false,
        };
        foreach (string argument in ScriptArguments(dataPath))
        {
            start.ArgumentList.Add(argument);
        }

        string partial = output + ".partial";
        using Process script = Process.Start(start) ?? throw new InvalidOperationException("perf script did not start");
        Task<string> errors = script.StandardError.ReadToEndAsync();
        TimeSpan cpu = TimeSpan.Zero;
        using var sampling = new Timer(_ => cpu = Max(cpu, CpuOf(script.Id)), null, 100, 100);
        long bodyBytes;
        try
        {
            await using (var file = new FileStream(partial, FileMode.Create, FileAccess.Write, FileShare.None, 1 << 16))
            await using (var gzip = new GZipStream(file, CompressionLevel.Fastest))
            {
                gzip.Write(System.Text.Encoding.ASCII.GetBytes(PerfFile.Header(targetPid, rateHz)));
                using var limit = new CancellationTokenSource(timeout * 4);
                bodyBytes = 0;
                var buffer = new byte[1 << 16];
                try
                {
                    int read;
                    while ((read = await script.StandardOutput.BaseStream.ReadAsync(buffer, limit.Token).ConfigureAwait(false)) > 0)
                    {
                        await gzip.WriteAsync(buffer.AsMemory(0, read), limit.Token).ConfigureAwait(false);
                        bodyBytes += read;
                    }

                    await script.WaitForExitAsync(limit.Token).ConfigureAwait(false);
                }
                catch (OperationCanceledException)
                {
                    TryKill(script);
                    throw new InvalidOperationException("perf script did not finish in time");
                }
            }

            string? cut = null;
            if (script.ExitCode != 0)
            {
                string stderr = (await errors.ConfigureAwait(false)).Trim();
                cut = DamagedRecord(stderr);
                if (cut is null || bodyBytes == 0)
                {
                    throw new InvalidOperationException($"perf script failed ({script.ExitCode}): {stderr}");
                }

                MarkCut(partial, PerfFile.Header(targetPid, rateHz, cut: true));
            }

            File.Move(partial, output, overwrite: true);
            return (cpu, cut);
        }
        finally
        {
            TryDelete(partial);
        }
    }

    /// <summary>perf's line saying it stopped at a sample it could not parse, or null for any other failure.</summary>
    internal static string? DamagedRecord(string stderr) =>
        stderr.Split('\n').Select(l => l.Trim()).FirstOrDefault(l =>
            l.Contains("failed to process type", StringComparison.Ordinal) || l.Contains("Can't parse sample", StringComparison.Ordinal));

    /// <summary>Rewrites <paramref name="path"/> (a perf file) with <paramref name="header"/> as its first line; the failure path only.</summary>
    private static void MarkCut(string path, string header)
    {
        string rewritten = path + ".cut";
        try
        {
            using (Stream source = PerfFile.OpenRaw(path))
            using (var file = new FileStream(rewritten, FileMode.Create, FileAccess.Write, FileShare.None, 1 << 16))
            using (var gzip = new GZipStream(file, CompressionLevel.Fastest))
            {
                int b;
                while ((b = source.ReadByte()) is not -1 and not '\n')
                {
                }

                gzip.Write(System.Text.Encoding.ASCII.GetBytes(header));
                source.CopyTo(gzip);
            }

            File.Move(rewritten, path, overwrite: true);
        }
        finally
        {
            TryDelete(rewritten);
        }
    }

    /// <summary>
    /// Per event kind, only what the analyzer reads: tracepoints (the scheduler's) need no stack;
    /// software events (cpu-clock, major-faults) carry their call chain, one frame per line.
    /// </summary>
    internal static IEnumerable<string> ScriptArguments(string dataPath) =>
    [
        "script", "-i", dataPath, "--ns",
        "-F", "trace:comm,pid,tid,cpu,time,event,trace",
        "-F", "sw:comm,pid,tid,cpu,time,event,ip,sym,dso",
    ];

    private async Task CommandAsync(string command, CancellationToken cancellationToken)
    {
        byte[] bytes = System.Text.Encoding.ASCII.GetBytes(command + "\n");
        await _control.WriteAsync(bytes, cancellationToken).ConfigureAwait(false);
        await _control.FlushAsync(cancellationToken).ConfigureAwait(false);
        var buffer = new byte[16];
        int read = await _ack.ReadAsync(buffer, cancellationToken).ConfigureAwait(false);
        if (read <= 0)
        {
            throw new IOException($"perf closed its control FIFO instead of acknowledging '{command}'");
        }
    }

    /// <summary>
    /// Stops perf if it still runs (SIGINT, killed past a few seconds: a ring's last dump is not
    /// wanted, but perf exits cleanly) and deletes everything it wrote: perf.data, a ring's dumps.
    /// </summary>
    public async ValueTask DisposeAsync()
    {
        try
        {
            await InterruptAsync(TimeSpan.FromSeconds(10)).ConfigureAwait(false);
        }
        catch (InvalidOperationException)
        {
            // Killed instead.
        }

        _ = await _output.EndAsync(TimeSpan.FromSeconds(10)).ConfigureAwait(false);

        await _control.DisposeAsync().ConfigureAwait(false);
        await _ack.DisposeAsync().ConfigureAwait(false);
        _perf.Dispose();
        _dumping.Dispose();
        TryDelete(_dataPath);
        try
        {
            Directory.Delete(_fifoDirectory, recursive: true);
        }
        catch (IOException)
        {
            // Already gone.
        }
    }

    /// <summary>user + system time of a live process, from /proc (zero once it is gone).</summary>
    internal static TimeSpan CpuOf(int pid)
    {
        try
        {
            string stat = File.ReadAllText($"/proc/{pid}/stat");
            // Fields after the command (which may hold spaces) start past its closing parenthesis; utime and stime are the 14th and 15th.
            string[] fields = stat[(stat.LastIndexOf(')') + 2)..].Split(' ');
            long ticks = long.Parse(fields[11], CultureInfo.InvariantCulture) + long.Parse(fields[12], CultureInfo.InvariantCulture);
            return TimeSpan.FromSeconds(ticks / 100.0);
        }
        catch (Exception e) when (e is IOException or FormatException or IndexOutOfRangeException or UnauthorizedAccessException)
        {
            return TimeSpan.Zero;
        }
    }

    private static TimeSpan Max(TimeSpan a, TimeSpan b) => a > b ? a : b;

    private static void TryKill(Process process)
    {
        try
        {
            if (!process.HasExited)
            {
                process.Kill();
            }
        }
        catch (InvalidOperationException)
        {
            // Exited meanwhile.
        }
    }

    private static void TryDelete(string path)
    {
        try
        {
            File.Delete(path);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            // Left for the user; nothing depends on it.
        }
    }

    private const int SigInt = 2;

    /// <summary>Linux's SIGUSR2: with --switch-output=signal, perf writes its rings out to a new file.</summary>
    private const int SigUsr2 = 12;

    [DllImport("libc", SetLastError = true)]
    private static extern int kill(int pid, int signal);

    [DllImport("libc", SetLastError = true)]
    private static extern int mkfifo([MarshalAs(UnmanagedType.LPUTF8Str)] string path, uint mode);
}

/// <summary>What a perf recording left and cost: its file beside the trace, its size, and the recorder's CPU.</summary>
public sealed record PerfRecording(string Path, long Bytes, long DataBytes, double Seconds, TimeSpan RecordCpu, TimeSpan ScriptCpu, int RateHz)
{
    /// <summary>perf's words when perf script stopped at a damaged record: the file then ends early (<see cref="PerfFileHeader.Cut"/>).</summary>
    public string? Cut { get; init; }

    /// <summary>One clause for a recording's line, empty when the file is whole.</summary>
    public string CutClause => Cut is null ? "" : $"; cut short: perf script stopped at a damaged record ({Cut}), so the file holds only the events before it";
}
