using TailDb.Benchmarks.Compare.Results;

namespace TailDb.Benchmarks.Compare.Goals;

public enum GoalStatus
{
    Met,
    Missed,

    /// <summary>A benchmark the goal needs is not in the results (filtered out, or not built yet).</summary>
    NotMeasured,

    /// <summary>Measured, with no bound to judge it by (<see cref="GoalKind.SpeedupReported"/>).</summary>
    Reported,
}

/// <param name="Value">The ratio (or bytes per operation) measured; null when not measured.</param>
public sealed record GoalResult(Goal Goal, double? Value, GoalStatus Status);

/// <summary>Judges goals on one run's results: ratios of medians, so both sides saw the same machine state.</summary>
public static class GoalEvaluator
{
    public static IReadOnlyList<GoalResult> Evaluate(IReadOnlyList<Goal> goals, IReadOnlyList<BenchmarkResult> results)
    {
        ArgumentNullException.ThrowIfNull(goals);
        ArgumentNullException.ThrowIfNull(results);
        var byId = new Dictionary<string, BenchmarkResult>(StringComparer.Ordinal);
        foreach (var result in results)
        {
            byId.TryAdd(result.Id, result);
        }

        return goals.Select(goal => Evaluate(goal, byId)).ToArray();
    }

    private static GoalResult Evaluate(Goal goal, Dictionary<string, BenchmarkResult> byId)
    {
        if (!byId.TryGetValue(goal.Subject, out var subject))
        {
            return new GoalResult(goal, null, GoalStatus.NotMeasured);
        }

        if (goal.Kind == GoalKind.AllocatedAtMost)
        {
            return subject.AllocatedBytesPerOperation is { } bytes
                ? new GoalResult(goal, bytes, bytes <= goal.Target ? GoalStatus.Met : GoalStatus.Missed)
                : new GoalResult(goal, null, GoalStatus.NotMeasured);
        }

        if (goal.Reference is null || !byId.TryGetValue(goal.Reference, out var reference) ||
            subject.NanosecondsPerOperation.Count == 0 || reference.NanosecondsPerOperation.Count == 0)
        {
            return new GoalResult(goal, null, GoalStatus.NotMeasured);
        }

        double Time(BenchmarkResult r) => goal.Statistic == GoalStatistic.FastestProcess ? r.FastestProcessNanoseconds : r.MedianNanoseconds;
        var ratio = goal.Kind == GoalKind.TimeAtMost
            ? Time(subject) / Time(reference)
            : Time(reference) / Time(subject);
        if (goal.Kind == GoalKind.SpeedupReported)
        {
            return new GoalResult(goal, ratio, GoalStatus.Reported);
        }

        var met = goal.Kind == GoalKind.TimeAtMost ? ratio <= goal.Target : ratio >= goal.Target;
        return new GoalResult(goal, ratio, met ? GoalStatus.Met : GoalStatus.Missed);
    }
}
