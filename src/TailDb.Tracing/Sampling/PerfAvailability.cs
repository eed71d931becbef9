using System.Runtime.InteropServices;

namespace TailDb.Tracing.Sampling;

/// <summary>Whether <c>perf</c> can record here: Linux, the tool on PATH, and root (or a paranoid level that lets us).</summary>
public sealed record PerfAvailability(bool Usable, string Detail)
{
    private static PerfAvailability? s_cached;

    public static PerfAvailability Check() => s_cached ??= Probe();

    private static PerfAvailability Probe()
    {
        if (!OperatingSystem.IsLinux())
        {
            return new(false, "perf is Linux-only");
        }

        string? tool = PerfRecorder.FindTool();
        if (tool is null)
        {
            return new(false, "no perf on PATH (Debian: apt-get install linux-perf; .ci/perf-tools.sh installs it)");
        }

        bool root = geteuid() == 0;
        string paranoid = ReadTrimmed("/proc/sys/kernel/perf_event_paranoid") ?? "?";
        if (!root && paranoid != "-1")
        {
            return new(false, $"not root and kernel.perf_event_paranoid is {paranoid} (system-wide scheduler events need root, CAP_PERFMON or -1)");
        }

        if (!TraceFs.EnsureMounted(out string? why))
        {
            return new(false, why!);
        }

        return new(true, root ? "root, " + tool : "perf_event_paranoid -1, " + tool);
    }

    private static string? ReadTrimmed(string path)
    {
        try
        {
            return File.ReadAllText(path).Trim();
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return null;
        }
    }

    [DllImport("libc", SetLastError = false)]
    private static extern uint geteuid();
}

/// <summary>The scheduler tracepoints live in tracefs; some machines boot without it mounted.</summary>
internal static class TraceFs
{
    private const string Path = "/sys/kernel/tracing";

    public static bool EnsureMounted(out string? problem)
    {
        problem = null;
        if (Directory.Exists(Path + "/events/sched") || Directory.Exists("/sys/kernel/debug/tracing/events/sched"))
        {
            return true;
        }

        try
        {
            using var mount = System.Diagnostics.Process.Start(new System.Diagnostics.ProcessStartInfo("mount", ["-t", "tracefs", "nodev", Path])
            {
                RedirectStandardError = true,
                RedirectStandardOutput = true,
            });
            mount?.WaitForExit(5000);
        }
        catch (System.ComponentModel.Win32Exception)
        {
            // No mount tool: reported below.
        }

        if (Directory.Exists(Path + "/events/sched"))
        {
            return true;
        }

        problem = $"tracefs is not mounted at {Path} and could not be (the scheduler tracepoints live there: mount -t tracefs nodev {Path})";
        return false;
    }
}
