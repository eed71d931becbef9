using System.Runtime.CompilerServices;
using TailDb.TestSupport.Skipping;
using TailDb.Tracing.Sampling;

namespace TailDb.Analyzer.Tests.Watch;

/// <summary>
/// A fact that watches with <c>--sampler perf</c>: needs Linux, root (or perf_event_paranoid -1),
/// the perf tool and the scheduler's tracepoints (.ci/perf-tools.sh installs and mounts them).
/// Skipped, saying why in one line, only where perf cannot run, by the check `--sampler` itself uses.
/// </summary>
public sealed class PerfFactAttribute : FactAttribute
{
    public PerfFactAttribute([CallerMemberName] string member = "", [CallerFilePath] string file = "")
    {
        if (PerfAvailability.Check() is { Usable: false } perf)
        {
            Skip = perf.Detail;
            DisplayName = SkipNotice.DisplayName(Skip, member, file);
        }
    }
}
