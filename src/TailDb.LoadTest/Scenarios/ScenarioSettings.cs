namespace TailDb.LoadTest.Scenarios;

/// <summary>
/// What every side of every story shares: how long it measures, how many keys it writes, how many
/// times gc-modes repeats. The defaults keep `scenario all` within a few minutes on 2 cores.
/// </summary>
public sealed record ScenarioSettings
{
    public double DurationSeconds { get; init; } = 4;
    public double WarmupSeconds { get; init; } = 1.5;
    public int Keys { get; init; } = 20_000;

    /// <summary>gc-modes: runs per mode, interleaved; its p99 is the median.</summary>
    public int Repeat { get; init; } = 1;

    /// <summary>--report DIR: each story's traces and pages in DIR/NAME/.</summary>
    public DirectoryInfo? ReportDirectory { get; init; }

    /// <summary>Folder of named runtimeconfigs; null is the one beside the assembly.</summary>
    public string? RuntimeConfigDirectory { get; init; }

    /// <summary>Seconds one harness run takes beyond warm-up and measurement: process start, the store's fill, tracing's rundown, analysis.</summary>
    public const double OverheadSeconds = 15;

    public string? Validate()
    {
        if (!(DurationSeconds is >= 0.5 and <= 600))
        {
            return $"--duration must be between 0.5 and 600 seconds (got {DurationSeconds})";
        }

        if (!(WarmupSeconds is >= 0 and <= 600))
        {
            return $"--warmup must be between 0 and 600 seconds (got {WarmupSeconds})";
        }

        if (Keys is < 100 or > 10_000_000)
        {
            return $"--keys must be between 100 and 10000000 (got {Keys})";
        }

        return Repeat is < 1 or > 100 ? $"--repeat must be between 1 and 100 (got {Repeat})" : null;
    }

    /// <summary>About how long a story of <paramref name="runs"/> harness runs takes.</summary>
    public TimeSpan Estimate(int runs) => TimeSpan.FromSeconds(runs * (WarmupSeconds + DurationSeconds + OverheadSeconds));
}
