using TailDb.Benchmarks.Compare.Goals;
using TailDb.Benchmarks.Compare.Reporting;
using TailDb.Benchmarks.Compare.Results;

namespace TailDb.Benchmarks.Compare.Tests.Goals;

public sealed class GoalEvaluatorTests
{
    private static BenchmarkResult Run(string id, double median, long allocated = 0) =>
        new(id, id, [median * 0.9, median, median * 1.1], allocated);

    [Fact]
    public void TimeGoalDividesSubjectMedianByReferenceMedian()
    {
        var goal = new Goal("hit", "S", "R", GoalKind.TimeAtMost, 1.3);

        var met = Assert.Single(GoalEvaluator.Evaluate([goal], [Run("S", 52), Run("R", 40)]));
        var missed = Assert.Single(GoalEvaluator.Evaluate([goal], [Run("S", 60), Run("R", 40)]));

        Assert.Equal(1.3, met.Value!.Value, 9);
        Assert.Equal(GoalStatus.Met, met.Status);
        Assert.Equal(1.5, missed.Value!.Value, 9);
        Assert.Equal(GoalStatus.Missed, missed.Status);
    }

    [Fact]
    public void AFastestProcessGoalComparesEachRowsFastestProcessNotThePooledMedian()
    {
        // The CI run of 2026-11-27 19:40: the bare row drew the fast vCPU twice, the store row once.
        var bare = new BenchmarkResult("R", "R", [22.1, 22.2, 23.7, 23.8, 41.5, 41.6], 0) { ProcessMedians = [22.1, 23.8, 41.5] };
        var store = new BenchmarkResult("S", "S", [46.0, 46.1, 46.2, 46.3, 27.9, 28.0], 0) { ProcessMedians = [46.0, 46.2, 27.95] };
        var fastest = new Goal("hit", "S", "R", GoalKind.TimeAtMost, 1.3, GoalStatistic.FastestProcess);
        var pooled = fastest with { Statistic = GoalStatistic.PooledMedian };

        var byFastest = Assert.Single(GoalEvaluator.Evaluate([fastest], [store, bare]));
        var byPooled = Assert.Single(GoalEvaluator.Evaluate([pooled], [store, bare]));

        Assert.Equal(27.95 / 22.1, byFastest.Value!.Value, 9);
        Assert.Equal(GoalStatus.Met, byFastest.Status);
        Assert.Equal(46.05 / 23.75, byPooled.Value!.Value, 9);
        Assert.Equal(GoalStatus.Missed, byPooled.Status);
    }

    [Fact]
    public void SpeedupGoalDividesReferenceMedianBySubjectMedian()
    {
        var goal = new Goal("reopen", "Hints", "Scan", GoalKind.SpeedupAtLeast, 5);

        var result = Assert.Single(GoalEvaluator.Evaluate([goal], [Run("Hints", 100), Run("Scan", 450)]));

        Assert.Equal(4.5, result.Value!.Value, 9);
        Assert.Equal(GoalStatus.Missed, result.Status);
    }

    [Fact]
    public void AllocationGoalReadsBytesPerOperation()
    {
        var goal = new Goal("zero", "S", null, GoalKind.AllocatedAtMost, 0);

        Assert.Equal(GoalStatus.Met, GoalEvaluator.Evaluate([goal], [Run("S", 1, allocated: 0)])[0].Status);
        Assert.Equal(GoalStatus.Missed, GoalEvaluator.Evaluate([goal], [Run("S", 1, allocated: 24)])[0].Status);
    }

    [Fact]
    public void GoalWhoseBenchmarkDidNotRunIsNotMeasuredRatherThanMissed()
    {
        var goal = new Goal("analyzer", "Pipeline", "TraceLog", GoalKind.SpeedupAtLeast, 2);

        var result = Assert.Single(GoalEvaluator.Evaluate([goal], [Run("TraceLog", 10)]));

        Assert.Equal(GoalStatus.NotMeasured, result.Status);
        Assert.Contains("| analyzer | - | >= 2.00x | not measured |", GoalTable.Render([result]), StringComparison.Ordinal);
    }

    [Fact]
    public void ReportedRatioIsPrintedWithNoTargetAndNeverMissed()
    {
        var goal = new Goal("peer put", "TailDb", "Faster", GoalKind.SpeedupReported, 0);

        var result = Assert.Single(GoalEvaluator.Evaluate([goal], [Run("TailDb", 400), Run("Faster", 100)]));

        Assert.Equal(0.25, result.Value!.Value, 9);
        Assert.Equal(GoalStatus.Reported, result.Status);
        Assert.Contains("| peer put | 0.25x | - | reported |", GoalTable.Render([result]), StringComparison.Ordinal);
    }

    [Fact]
    public void PeerGetHitGoalIsTailDbThroughputOverFasterAtOneAndTwoThreads()
    {
        var peers = TailDbGoals.All.Where(g => g.Subject.Contains("PeerBenchmarks.TailDbGetHit", StringComparison.Ordinal)).ToArray();

        Assert.Equal(2, peers.Length);
        Assert.All(peers, g => Assert.Equal((GoalKind.SpeedupAtLeast, 1.0), (g.Kind, g.Target)));
        Assert.All(peers, g => Assert.Contains("PeerBenchmarks.FasterGetHit(Threads: ", g.Reference, StringComparison.Ordinal));
    }

    [Fact]
    public void EveryTailDbGoalNamesBenchmarksOfTheSuite()
    {
        Assert.All(TailDbGoals.All, g => Assert.StartsWith("TailDb.Benchmarks.", g.Subject, StringComparison.Ordinal));
        Assert.Contains(TailDbGoals.All, g => g.Kind == GoalKind.AllocatedAtMost && g.Target == 0);
    }
}
