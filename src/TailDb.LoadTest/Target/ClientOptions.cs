namespace TailDb.LoadTest.Target;

/// <summary>
/// How the load test talks to a networked target: a fixed pool of connections, each with at most
/// <see cref="Pipeline"/> requests in flight; a request that finds no free slot waits, and that
/// wait counts in its response time (it is measured from the request's intended start).
/// </summary>
public sealed record ClientOptions
{
    public int Connections { get; init; } = 4;

    /// <summary>Most requests in flight on one connection (1: one at a time, no pipelining).</summary>
    public int Pipeline { get; init; } = 1;

    /// <summary>A request with no reply this long after it was sent is timed out and retried on another connection.</summary>
    public int TimeoutMilliseconds { get; init; } = 1000;

    /// <summary>
    /// The fill's timeout (setup, not measured: every key SET, then read once), when it must differ
    /// from <see cref="TimeoutMilliseconds"/>: a story whose measured timeout is meant to be too short
    /// (the retries scenario's 8 ms) would otherwise fail its fill in a retry storm. Null: the same.
    /// </summary>
    public int? FillTimeoutMilliseconds { get; init; }

    /// <summary>Times a timed-out request is sent again before it counts as failed.</summary>
    public int Retries { get; init; } = 2;

    /// <summary>The first retry waits this long; each further one twice as long as the one before.</summary>
    public const int BackoffMilliseconds = 5;

    public string? Validate()
    {
        if (Connections is < 1 or > 1024)
        {
            return $"--connections must be between 1 and 1024 (got {Connections})";
        }

        if (Pipeline is < 1 or > 4096)
        {
            return $"--pipeline must be between 1 and 4096 (got {Pipeline})";
        }

        if (TimeoutMilliseconds is < 1 or > 600_000)
        {
            return $"--timeout-ms must be between 1 and 600000 (got {TimeoutMilliseconds})";
        }

        if (Retries is < 0 or > 20)
        {
            return $"--retries must be between 0 and 20 (got {Retries})";
        }

        return null;
    }

    /// <summary>The wait before retry number <paramref name="attempt"/> (1-based), in milliseconds.</summary>
    public static int BackoffBefore(int attempt) => BackoffMilliseconds << Math.Min(attempt - 1, 16);

    public string Describe() =>
        $"{Connections} connection{(Connections == 1 ? "" : "s")} × pipeline {Pipeline}, timeout {TimeoutMilliseconds} ms, {Retries} retr{(Retries == 1 ? "y" : "ies")}";
}
