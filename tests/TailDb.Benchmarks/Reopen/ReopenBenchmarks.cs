namespace TailDb.Benchmarks.Reopen;

/// <summary>
/// 64 B values: a record (16 + 16 + 64 B) is only 2.4x the size of its hint entry (24 + 16 B), so
/// this is the case where hints can save least; building the key directory dominates both sides.
/// </summary>
public class ReopenBenchmarks : ReopenBenchmarkBase
{
    protected override int ValueBytes => 64;
}
