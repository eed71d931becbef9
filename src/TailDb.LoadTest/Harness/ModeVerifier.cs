using TailDb.LoadTest.Reporting;

namespace TailDb.LoadTest.Harness;

/// <summary>Checks a worker's result against what its runtimeconfig asked for.</summary>
public static class ModeVerifier
{
    public static IReadOnlyList<Problem> Verify(GcMode mode, WorkerResult result)
    {
        var problems = new List<Problem>();
        foreach (string mismatch in mode.Expectation.Mismatches(result.Gc))
        {
            problems.Add(new Problem(ExitCode.GcMismatch,
                $"mode '{mode.Name}': the worker did not get the GC its runtimeconfig asked for ({mode.RuntimeConfigPath}): {mismatch}"));
        }

        if (mode.Expectation.NoGcRegion)
        {
            problems.AddRange(VerifyNoGc(mode, result));
        }

        return problems;
    }

    private static IEnumerable<Problem> VerifyNoGc(GcMode mode, WorkerResult result)
    {
        NoGcRegionOutcome? region = result.NoGcRegion;
        GcActivity gcs = result.GcDuringMeasurement;
        if (region is null)
        {
            yield return new Problem(ExitCode.NoGcRegionViolated, $"mode '{mode.Name}': the worker did not enter a no-GC region");
            yield break;
        }

        if (!region.Started)
        {
            yield return new Problem(ExitCode.NoGcRegionViolated, $"mode '{mode.Name}': {region.Error}; try a smaller --nogc-budget, --duration or --rate");
            yield break;
        }

        if (gcs.Total > 0 || !region.ActiveAtEnd)
        {
            long shortBy = gcs.AllocatedBytes - region.BudgetBytes;
            string why = shortBy > 0
                ? $"the measured phase allocated {Mb(gcs.AllocatedBytes)}, {Mb(shortBy)} more than the {Mb(region.BudgetBytes)} budget; pass --nogc-budget {RoundUp(gcs.AllocatedBytes * 5 / 4)} or shorten --duration"
                : $"the region ended although the phase allocated {Mb(gcs.AllocatedBytes)} of the {Mb(region.BudgetBytes)} budget (a large object or an induced GC)";
            yield return new Problem(ExitCode.NoGcRegionViolated,
                $"mode '{mode.Name}': {gcs.Total} GC(s) ran during the measured phase (gen0 {gcs.Gen0}, gen1 {gcs.Gen1}, gen2 {gcs.Gen2}): {why}");
        }
    }

    private static string Mb(long bytes) => $"{bytes / 1048576.0:0.0} MiB";

    private static long RoundUp(long bytes) => ((bytes >> 20) + 1) << 20;
}
