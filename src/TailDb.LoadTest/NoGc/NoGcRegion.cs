using System.Runtime;
using TailDb.LoadTest.Reporting;
using TailDb.LoadTest.Workloads;

namespace TailDb.LoadTest.NoGc;

/// <summary>
/// The no-GC mode's region: entered after warm-up with a budget sized from the warm-up's measured
/// allocation per request (or --nogc-budget), left after the measured phase.
/// </summary>
public static class NoGcRegion
{
    // Headroom over the estimate: the rate is a target, allocation per request varies (large puts,
    // cache inserts), and the runtime allocates a little of its own.
    private const double Headroom = 1.5;
    private const long FixedBytes = 64L << 20;

    public static bool RequestedByRuntimeConfig() => AppContext.GetData(GcExpectation.NoGcRegionProperty) switch
    {
        bool b => b,
        string s => bool.TryParse(s, out bool parsed) && parsed,
        _ => false,
    };

    /// <summary>Bytes the measured phase is expected to allocate, with headroom.</summary>
    public static long EstimateBudget(WorkloadOptions workload, long warmupAllocatedBytes, long warmupOperations, TimeSpan warmupElapsed)
    {
        double perOperation = warmupOperations > 0
            ? (double)warmupAllocatedBytes / warmupOperations
            : workload.AppAllocBytes + (2.0 * workload.MaxValueBytes);
        double operationsPerSecond = workload.Rate
            ?? (warmupOperations > 0 && warmupElapsed > TimeSpan.Zero ? warmupOperations / warmupElapsed.TotalSeconds : 100_000);
        return (long)(perOperation * operationsPerSecond * workload.DurationSeconds * Headroom) + FixedBytes;
    }

    /// <summary>Enters the region; the outcome says why not when the runtime refuses.</summary>
    public static NoGcRegionOutcome Start(long budgetBytes, bool fromWorkload)
    {
        try
        {
            bool started = GC.TryStartNoGCRegion(budgetBytes);
            return new NoGcRegionOutcome(budgetBytes, fromWorkload, started, started,
                started ? null : $"GC.TryStartNoGCRegion({budgetBytes:N0}) returned false: not enough memory could be committed");
        }
        catch (ArgumentOutOfRangeException e)
        {
            return new NoGcRegionOutcome(budgetBytes, fromWorkload, false, false, $"GC.TryStartNoGCRegion({budgetBytes:N0}) refused the budget: {e.Message.Split('\n')[0]}");
        }
        catch (InvalidOperationException e)
        {
            return new NoGcRegionOutcome(budgetBytes, fromWorkload, false, false, $"GC.TryStartNoGCRegion failed: {e.Message}");
        }
    }

    /// <summary>Leaves the region if it is still in force, recording whether it held to the end.</summary>
    public static NoGcRegionOutcome End(NoGcRegionOutcome outcome)
    {
        if (!outcome.Started)
        {
            return outcome;
        }

        bool active = GCSettings.LatencyMode == GCLatencyMode.NoGCRegion;
        if (active)
        {
            try
            {
                GC.EndNoGCRegion();
            }
            catch (InvalidOperationException)
            {
                // The region ended between the check and the call (a GC was induced or the budget ran out).
                active = false;
            }
        }

        return outcome with { ActiveAtEnd = active };
    }
}
