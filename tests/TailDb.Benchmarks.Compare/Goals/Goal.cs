namespace TailDb.Benchmarks.Compare.Goals;

/// <summary>
/// One of the numbers that define "good" (docs/benchmarks.md, issue 5), measured as a ratio of two
/// benchmarks' median times from the same run, or as bytes allocated per operation.
/// </summary>
/// <param name="Name">What the goal is about, as the report prints it.</param>
/// <param name="Subject">FullName of the benchmark the goal is about.</param>
/// <param name="Reference">FullName of the benchmark it is compared with (null for an allocation goal).</param>
/// <param name="Kind">How the ratio is formed and judged.</param>
/// <param name="Target">The bound: a maximum for <see cref="GoalKind.TimeAtMost"/> and
/// <see cref="GoalKind.AllocatedAtMost"/>, a minimum for <see cref="GoalKind.SpeedupAtLeast"/>.</param>
/// <param name="Statistic">Which time of each benchmark the ratio is formed from.</param>
public sealed record Goal(string Name, string Subject, string? Reference, GoalKind Kind, double Target,
    GoalStatistic Statistic = GoalStatistic.PooledMedian);

public enum GoalStatistic
{
    /// <summary>The median of all the benchmark's measurements, every process pooled.</summary>
    PooledMedian,

    /// <summary>
    /// The fastest process's median (<see cref="Results.BenchmarkResult.FastestProcessNanoseconds"/>).
    /// For short single-threaded rows on a VM whose vCPUs change speed for minutes at a time: a
    /// process runs on one vCPU throughout, so its median is that vCPU's speed, and the pooled median
    /// of a few processes is whichever vCPU most of them drew. Each row's fastest process compares
    /// the code at the machine's best, on both sides of the ratio.
    /// </summary>
    FastestProcess,
}

public enum GoalKind
{
    /// <summary>time(subject) / time(reference) must be at most the target (times per <see cref="GoalStatistic"/>).</summary>
    TimeAtMost,

    /// <summary>median(reference) / median(subject) (how many times faster, or the throughput
    /// ratio) must be at least the target.</summary>
    SpeedupAtLeast,

    /// <summary>The subject's allocated bytes per operation must be at most the target.</summary>
    AllocatedAtMost,

    /// <summary>median(reference) / median(subject), printed beside the goals with no bound
    /// (the target is ignored): a comparison the issues ask to report, not to reach.</summary>
    SpeedupReported,
}
