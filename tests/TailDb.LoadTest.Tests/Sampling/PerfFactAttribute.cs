using System.Runtime.CompilerServices;

using TailDb.TestSupport.Skipping;
using TailDb.Tracing.Sampling;

namespace TailDb.LoadTest.Tests.Sampling;

/// <summary>
/// A fact that records with <c>--sampler perf</c>: needs Linux, root (or perf_event_paranoid -1),
/// the perf tool and the scheduler's tracepoints (.ci/perf-tools.sh installs and mounts them).
/// Skipped, saying why, only where perf cannot run, by the same check `--sampler` uses.
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

    /// <summary>Why perf cannot record here, or null when it can: the product's own check (PerfAvailability), never restated.</summary>
    public static string? Why() => PerfAvailability.Check() is { Usable: false } perf ? perf.Detail : null;

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
