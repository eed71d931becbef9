using System.Diagnostics;
using System.Globalization;
using System.Runtime.InteropServices;
using TailDb.LoadTest.Harness;

namespace TailDb.LoadTest.Injections;

/// <summary>
/// The cpu-hog injection's other process: `TailDb.LoadTest cpu-hog --cpu N`, pinned to CPU N at
/// real-time priority (SCHED_FIFO 1 as root; else the highest nice it may take), named
/// <see cref="ProcessName"/> so the scheduler's view names it. Told "spin MS" on its standard input,
/// it spins that long and answers with its start and stop on the Stopwatch clock. Only the kernel
/// sees what it does to the load thread pinned beside it: that thread is runnable and not run.
/// </summary>
public sealed class CpuHog : IDisposable
{
    public const string CommandName = "cpu-hog";
    public const string ProcessName = "taildb-cpu-hog";

    /// <summary>The CPU the hog and load thread 0 share.</summary>
    public const int Cpu = 0;

    private readonly Process _process;

    private CpuHog(Process process) => _process = process;

    public static CpuHog Start()
    {
        var start = new ProcessStartInfo(WorkerLaunch.DotnetHostPath())
        {
            UseShellExecute = false,
            RedirectStandardInput = true,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
        };
        start.ArgumentList.Add(typeof(CpuHog).Assembly.Location);
        start.ArgumentList.Add(CommandName);
        start.ArgumentList.Add("--cpu");
        start.ArgumentList.Add(Cpu.ToString(CultureInfo.InvariantCulture));
        WorkerLaunch.RemoveInherited(start.Environment);
        var process = Process.Start(start) ?? throw new InvalidOperationException("the cpu-hog process did not start");
        string? ready = process.StandardOutput.ReadLine();
        if (ready is null || !ready.StartsWith("ready", StringComparison.Ordinal))
        {
            process.Kill();
            throw new InvalidOperationException($"the cpu-hog process did not start: {process.StandardError.ReadToEnd().Trim()}");
        }

        Policy = ready.Length > 6 ? ready[6..] : "";
        return new CpuHog(process);
    }

    /// <summary>What priority the hog got ("SCHED_FIFO 1", "nice -20", "nice 0"), for the run's output.</summary>
    public static string Policy { get; private set; } = "";

    /// <summary>Spins for <paramref name="milliseconds"/> on the hog's CPU; returns when it did, on the Stopwatch clock.</summary>
    public (long Start, long Stop) Spin(double milliseconds)
    {
        _process.StandardInput.WriteLine(string.Create(CultureInfo.InvariantCulture, $"spin {milliseconds}"));
        _process.StandardInput.Flush();
        string? reply = _process.StandardOutput.ReadLine();
        string[] parts = reply?.Split(' ') ?? [];
        return parts.Length == 2
            ? (long.Parse(parts[0], CultureInfo.InvariantCulture), long.Parse(parts[1], CultureInfo.InvariantCulture))
            : throw new InvalidOperationException($"the cpu-hog process answered '{reply}'");
    }

    public void Dispose()
    {
        try
        {
            _process.StandardInput.Close();
            if (!_process.WaitForExit(2000))
            {
                _process.Kill();
            }
        }
        catch (Exception e) when (e is InvalidOperationException or IOException)
        {
            // Already gone.
        }

        _process.Dispose();
    }

    /// <summary>The hog's own loop (the hidden command): pin, raise priority, spin on request.</summary>
    public static int Run(int cpu, TextReader input, TextWriter output)
    {
        _ = prctl(PrSetName, ProcessName, 0, 0, 0);
        Pin(cpu);
        string policy = RaisePriority();
        output.WriteLine($"ready {policy}");
        output.Flush();
        while (input.ReadLine() is { } line)
        {
            if (!line.StartsWith("spin ", StringComparison.Ordinal) || !double.TryParse(line[5..], NumberStyles.Float, CultureInfo.InvariantCulture, out double ms))
            {
                continue;
            }

            long start = Stopwatch.GetTimestamp();
            long until = start + (long)(ms * Stopwatch.Frequency / 1000);
            while (Stopwatch.GetTimestamp() < until)
            {
                Thread.SpinWait(20);
            }

            output.WriteLine(string.Create(CultureInfo.InvariantCulture, $"{start} {Stopwatch.GetTimestamp()}"));
            output.Flush();
        }

        return 0;
    }

    /// <summary>Pins the calling thread (Linux: sched_setaffinity(0) is this thread) to <paramref name="cpu"/>; false where it cannot.</summary>
    public static bool Pin(int cpu)
    {
        if (!OperatingSystem.IsLinux() || cpu < 0 || cpu >= 64)
        {
            return false;
        }

        ulong mask = 1UL << cpu;
        return sched_setaffinity(0, (nint)sizeof(ulong), ref mask) == 0;
    }

    private static string RaisePriority()
    {
        if (!OperatingSystem.IsLinux())
        {
            return "default";
        }

        int priority = 1;
        if (sched_setscheduler(0, SchedFifo, ref priority) == 0)
        {
            return "SCHED_FIFO 1";
        }

        for (int nice = -20; nice <= 0; nice += 5)
        {
            if (setpriority(0, 0, nice) == 0)
            {
                return $"nice {nice}";
            }
        }

        return "nice 0";
    }

    private const int SchedFifo = 1;
    private const int PrSetName = 15;

    [DllImport("libc", SetLastError = true)]
    private static extern int sched_setaffinity(int pid, nint size, ref ulong mask);

    [DllImport("libc", SetLastError = true)]
    private static extern int sched_setscheduler(int pid, int policy, ref int priority);

    [DllImport("libc", SetLastError = true)]
    private static extern int setpriority(int which, int who, int priority);

    [DllImport("libc", SetLastError = true)]
    private static extern int prctl(int option, [MarshalAs(UnmanagedType.LPUTF8Str)] string name, nint a, nint b, nint c);
}
