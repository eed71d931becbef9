using System.Runtime.CompilerServices;

using TailDb.TestSupport.Skipping;

namespace TailDb.LoadTest.Tests.Sampling;

/// <summary>
/// A fact that records with <c>--sampler perf</c>: needs Linux, root (or perf_event_paranoid -1),
/// the perf tool and the scheduler's tracepoints (.ci/perf-tools.sh installs and mounts them).
/// Skipped, saying why, only where perf cannot run. The check mirrors TailDb.Tracing's
/// PerfAvailability, which the product uses; this library stays BCL-only.
/// </summary>
public sealed class PerfFactAttribute : FactAttribute
{
    public PerfFactAttribute([CallerMemberName] string member = "", [CallerFilePath] string file = "")
    {
        if (Why() is { } reason)
        {
            Skip = reason;
            DisplayName = SkipNotice.DisplayName(Skip, member, file);
        }
    }

    /// <summary>Why perf cannot record here, or null when it can.</summary>
    public static string? Why()
    {
        if (!OperatingSystem.IsLinux())
        {
            return "perf is Linux-only";
        }

        var path = (Environment.GetEnvironmentVariable("PATH") ?? "/usr/bin:/bin").Split(':');
        if (!path.Any(d => File.Exists(Path.Combine(d, "perf"))))
        {
            return "perf not on PATH: run .ci/perf-tools.sh (apt-get install -y linux-perf; .ci/run does)";
        }

        if (Environment.UserName != "root" && File.ReadAllText("/proc/sys/kernel/perf_event_paranoid").Trim() != "-1")
        {
            return "perf needs root or kernel.perf_event_paranoid -1 for system-wide scheduler events";
        }

        return Directory.Exists("/sys/kernel/tracing/events/sched") || Directory.Exists("/sys/kernel/debug/tracing/events/sched")
            ? null
            : "tracefs is not mounted: run .ci/perf-tools.sh (mount -t tracefs nodev /sys/kernel/tracing; .ci/run does)";
    }

    /// <summary>Why stress-ng cannot run here beside perf, or null when both can.</summary>
    public static string? WhyNotWithStress() =>
        Why() ?? ((Environment.GetEnvironmentVariable("PATH") ?? "/usr/bin:/bin").Split(':').Any(d => File.Exists(Path.Combine(d, "stress-ng")))
            ? null
            : "stress-ng not on PATH: run .ci/perf-tools.sh (apt-get install -y stress-ng; .ci/run does)");
}

/// <summary>A <see cref="PerfFactAttribute"/> that also needs stress-ng.</summary>
public sealed class PerfWithStressFactAttribute : FactAttribute
{
    public PerfWithStressFactAttribute([CallerMemberName] string member = "", [CallerFilePath] string file = "")
    {
        if (PerfFactAttribute.WhyNotWithStress() is { } reason)
        {
            Skip = reason;
            DisplayName = SkipNotice.DisplayName(Skip, member, file);
        }
    }
}
