namespace TailDb.Benchmarks.Fixtures;

/// <summary>
/// Runs a benchmark's callee through the JIT's tiers in [GlobalSetup]: tier 0, the instrumented
/// tier (which records, among others, the class behind each interface call), then tier 1, each
/// promotion after 30 calls and a quiet 100 ms. Without it the benchmark method and its callees
/// tiered up together while BenchmarkDotNet called them, in an order that varied between
/// processes: when the benchmark method reached tier 1 before a callee's profile was recorded, the
/// callee was inlined without it, and an interface call (the destination writer, the dictionary's
/// comparer) stayed a virtual-stub dispatch instead of a guarded direct call. Single-stepped, one
/// build's store hit took 300 instructions in one process and 317 in the next
/// (docs/benchmarks.md, "Instructions per hit").
/// </summary>
public static class TieredWarmUp
{
    public static void Run(Action call)
    {
        for (int round = 0; round < 6; round++)
        {
            for (int i = 0; i < 1_000; i++)
            {
                call();
            }

            Thread.Sleep(150);
        }
    }
}
