namespace TailDb.Benchmarks.Reopen;

/// <summary>
/// 1 KiB values: a record is 26x its hint entry, the shape hint files exist for (a scan must read
/// and CRC-check every value; the hint path never touches one).
/// </summary>
public class ReopenLargeValueBenchmarks : ReopenBenchmarkBase
{
    protected override int ValueBytes => 1024;
}
