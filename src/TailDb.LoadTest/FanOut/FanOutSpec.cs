using TailDb.LoadTest.Measurement;
using TailDb.LoadTest.Target;
using TailDb.LoadTest.Workloads;
using TailDb.Tracing;

namespace TailDb.LoadTest.FanOut;

/// <summary>How a fan-out request's Gets reach the shards.</summary>
public enum FanOutRoute
{
    /// <summary>The client computes each key's shard (<see cref="KetamaRing"/>) and connects to every shard.</summary>
    Direct,

    /// <summary>Every Get goes to twemproxy, which routes it by the same ring.</summary>
    Twemproxy,
}

/// <summary>What the fan-out client child does; written as JSON, its path passed on the command line.</summary>
public sealed record FanOutSpec
{
    /// <summary>The shards in ring order (their names are shard0..shardN-1).</summary>
    public required IReadOnlyList<TargetAddress> Shards { get; init; }

    public required FanOutRoute Route { get; init; }

    /// <summary>twemproxy's address when <see cref="Route"/> is <see cref="FanOutRoute.Twemproxy"/>.</summary>
    public TargetAddress? Proxy { get; init; }

    /// <summary>Rate, threads, keys, value size, seed, warm-up and measured seconds (the reads of the plan; its writes are not sent).</summary>
    public required WorkloadOptions Workload { get; init; }

    public required string ResultPath { get; init; }

    /// <summary>A request whose N replies have not all come by then fails the run.</summary>
    public int TimeoutMilliseconds { get; init; } = 10_000;
}

/// <summary>
/// What the fan-out client measured. Request latencies are from each request's arrival (its scheduled start)
/// (corrected) and from its first send (uncorrected: the same basis as a Get's send → reply, so the
/// two compare); <see cref="PredictedP99"/> is what the per-Get distribution predicts for the max of
/// N independent Gets: P(max ≤ x) = F(x)^N, so the request p99 is the per-Get value at 0.99^(1/N),
/// and a Get slower than the per-Get p99 (p = 1%) is in 1-(1-p)^N of requests.
/// </summary>
public sealed record FanOutResult
{
    public required FanOutRoute Route { get; init; }
    public required int Shards { get; init; }
    public required double MeasuredSeconds { get; init; }
    public required long Requests { get; init; }
    public required long Backlog { get; init; }
    public required LatencySummary Corrected { get; init; }
    public required LatencySummary Uncorrected { get; init; }

    /// <summary>Every Get, send to reply, all shards together.</summary>
    public required LatencySummary Get { get; init; }

    /// <summary>Each shard's Gets alone, in shard order.</summary>
    public required IReadOnlyList<LatencySummary> PerShard { get; init; }

    /// <summary>The per-Get value at percentile 100·0.99^(1/N): the request p99 N independent Gets would make.</summary>
    public required long PredictedP99 { get; init; }

    /// <summary>1-(1-0.01)^N: the share of requests with a Get slower than the per-Get p99, if the Gets were independent.</summary>
    public required double PredictedShareOverGetP99 { get; init; }

    /// <summary>The share of requests (uncorrected) slower than the per-Get p99, measured.</summary>
    public required double MeasuredShareOverGetP99 { get; init; }

    /// <summary>Gets answered with an error (twemproxy's, when a shard does not answer in its timeout).</summary>
    public required long ErrorReplies { get; init; }

    /// <summary>The client's GC pauses in the measured phase (ms): the client is not where the tail should be.</summary>
    public required double ClientGcPauseMilliseconds { get; init; }

    /// <summary>The client's phases on the Stopwatch clock, so each server's trace can be cut to the measured phase.</summary>
    public required IReadOnlyList<PhaseSpan> Phases { get; init; }
}
