using TailDb.Analyzer.Computers;
using TailDb.Analyzer.Traces;
using TailDb.Tracing;

namespace TailDb.Analyzer.Findings;

/// <summary>What held a fan-out request's last Get on its shard.</summary>
public enum ShardHold
{
    /// <summary>A GC pause of the shard's server covered most of the Get.</summary>
    GcPause,

    /// <summary>The shard's server wrote no event for most of the Get, and no GC pause says why: its process did not run (stopped, or starved of a CPU), or the Get was held before it (a proxy).</summary>
    Silent,

    /// <summary>The shard's server was running and recording through the Get: the time went to serving it, the network or a proxy.</summary>
    Running,
}

/// <summary>
/// One slow fan-out request and the shard that made it slow: the shard whose Get answered last
/// (the request waits for all N), that Get's time, the next-slowest Get's (how far behind the
/// others it was), and what the shard's own trace shows inside that Get's window.
/// </summary>
/// <param name="PauseMs">GC pause time of the shard's server inside the Get's window.</param>
/// <param name="SilentMs">The longest span inside the window with no event from the shard's server.</param>
/// <param name="RequestMs">First send to last reply: the fan-out's own time.</param>
/// <param name="QueuedMs">Arrival (intended start) to first send: the wait on the client before the Gets went out.</param>
public sealed record FanOutBlame(int Rank, double RequestMs, double QueuedMs, int Shard, double GetMs, double NextGetMs, ShardHold Hold, double PauseMs, double SilentMs)
{
    /// <summary>The next-slowest Get at least this share of the slowest: the Gets were slow together, and no one shard made the request slow.</summary>
    public const double TogetherShare = 0.8;

    /// <summary>Every Get was about as slow as the last: the client's machine, the network or the proxy held them all, not one shard.</summary>
    public bool Together => NextGetMs >= TogetherShare * GetMs;

    public string Describe() => Together
        ? $"no one shard: every Get was slow together ({GetMs:0.0} ms, the next-slowest {NextGetMs:0.0} ms; shard {Shard}'s answered last): the client's machine, the network or the proxy"
        : Hold switch
    {
        ShardHold.GcPause => $"shard {Shard}: its GC pause ({PauseMs:0.0} ms) inside its Get ({GetMs:0.0} ms; the next-slowest shard's {NextGetMs:0.0} ms)",
        ShardHold.Silent => $"shard {Shard}: its server wrote nothing for {SilentMs:0.0} ms of its Get ({GetMs:0.0} ms; the next-slowest shard's {NextGetMs:0.0} ms) and no GC pause covers it: the process did not run, or the Get had not reached it",
        _ => $"shard {Shard}: its Get took {GetMs:0.0} ms (the next-slowest shard's {NextGetMs:0.0} ms) with its server running: serving, the network or the proxy",
    };
}

/// <summary>The slowest fan-out requests of a client trace, each blamed on one shard through the shards' traces.</summary>
/// <param name="Requests">Fan-out requests in the client's measured phase.</param>
public sealed record FanOutAttribution(long Requests, IReadOnlyList<FanOutBlame> Slowest)
{
    /// <summary>The shard named most often among <see cref="Slowest"/> (requests whose Gets were slow together name none), and how often.</summary>
    public (int Shard, int Count)? MostBlamed => Slowest.Any(b => !b.Together)
        ? Slowest.Where(b => !b.Together).GroupBy(b => b.Shard).Select(g => (g.Key, g.Count())).OrderByDescending(g => g.Item2).ThenBy(g => g.Key).First()
        : null;

    /// <summary>How many of <see cref="Slowest"/> had every Get slow together.</summary>
    public int Together => Slowest.Count(b => b.Together);
}

/// <summary>
/// The fan-out story's attribution: given the client's trace (each request and its N Gets, per
/// shard) and each shard server's trace, which shard's pause made each slow request. All traces are
/// of processes on one machine, whose event times are the same monotonic clock (Stopwatch ticks,
/// each trace's <see cref="TraceClock"/> says how its relative times map to them), so a Get's window
/// on the client is laid over the shard's GC pauses and event stream directly.
/// </summary>
public static class FanOutFindings
{
    /// <summary>A server quiet for less than this is not called silent: between two commands a busy server writes nothing for a fraction of a millisecond.</summary>
    public const double MinimumSilenceMs = 1;

    /// <summary>The <paramref name="top"/> slowest requests (first send to last reply) of the client's measured phase (all, without phase marks), each blamed on a shard; null with <paramref name="problem"/> when a trace cannot be read.</summary>
    /// <param name="shardTraces">Shard i's server trace at index i (the shard the client's Get events name).</param>
    public static FanOutAttribution? TryAttribute(string clientTrace, IReadOnlyList<string> shardTraces, int top, out string? problem)
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(clientTrace);
        ArgumentNullException.ThrowIfNull(shardTraces);
        problem = null;
        try
        {
            return Attribute(clientTrace, shardTraces, top);
        }
        catch (AnalyzerException e)
        {
            problem = e.Message;
            return null;
        }
    }

    private static FanOutAttribution Attribute(string clientTrace, IReadOnlyList<string> shardTraces, int top)
    {
        var client = new FanOutComputer();
        var phases = new PhaseComputer();
        var clientClock = Clock(clientTrace);
        TracePass.Run(clientTrace, [client, phases]);
        var measured = phases.Phases.FirstOrDefault(p => p.Phase == Phase.Measured);
        var shards = new List<(List<(double Start, double Stop)> Pauses, EventTimesComputer Events, TraceClock Clock)>();
        foreach (string trace in shardTraces)
        {
            var gc = new GcPauseComputer();
            var events = new EventTimesComputer();
            TracePass.Run(trace, [gc, events]);
            shards.Add(([.. gc.Pauses.Select(p => (p.StartMSec, p.StopMSec))], events, Clock(trace)));
        }

        // On the client's relative clock: arrival → request stop, and each Get's send → reply.
        var requests = client.Requests
            .Select(r => (Request: r, Arrival: clientClock.RelativeMSec(r.ArrivalQpc)))
            .Where(r => measured == default || (r.Arrival >= measured.StartMSec && r.Arrival <= measured.StopMSec))
            .ToList();
        // Ranked by the fan-out's own time, first send to last reply (as the client measures it): a request that queued on the client
        // behind an earlier one was made slow by that one's shard, which that one's row names.
        var blames = new List<FanOutBlame>();
        var ranked = requests
            .Where(r => r.Request.Gets.Count > 0)
            .Select(r => (r.Request, r.Arrival, FirstSend: r.Request.Gets.Values.Min(g => g.SentMSec), LastReply: r.Request.Gets.Values.Max(g => g.ReplyMSec)))
            .OrderByDescending(r => r.LastReply - r.FirstSend)
            .Take(top);
        foreach (var (request, arrival, firstSend, lastReply) in ranked)
        {
            var gets = request.Gets.OrderByDescending(g => g.Value.ReplyMSec).ToList();
            var (shard, (sent, reply)) = (gets[0].Key, gets[0].Value);
            double next = gets.Count > 1 ? gets[1].Value.ReplyMSec - gets[1].Value.SentMSec : 0;
            double pause = 0, silent = 0;
            if (shard < shards.Count)
            {
                var (pauses, events, clock) = shards[shard];
                // The Get's window on the shard's own relative clock.
                double start = clock.RelativeMSec(ToQpc(clientClock, sent)), stop = clock.RelativeMSec(ToQpc(clientClock, reply));
                pause = pauses.Sum(p => Math.Max(0, Math.Min(stop, p.Stop) - Math.Max(start, p.Start)));
                silent = events.LongestSilence(start, stop);
            }

            double get = reply - sent;
            ShardHold hold = pause >= get / 2 ? ShardHold.GcPause : silent >= Math.Max(get / 2, MinimumSilenceMs) ? ShardHold.Silent : ShardHold.Running;
            blames.Add(new FanOutBlame(blames.Count + 1, lastReply - firstSend, firstSend - arrival, shard, get, next, hold, pause, silent));
        }

        return new FanOutAttribution(requests.Count, blames);
    }

    private static long ToQpc(TraceClock clock, double relativeMSec) => clock.SyncTimeQpc + (long)Math.Round(relativeMSec * clock.QpcFrequency / 1000.0);

    private static TraceClock Clock(string trace) =>
        TraceClock.Read(trace, TraceFile.Check(trace))
        ?? throw new AnalyzerException(ExitCode.BadTrace, $"{trace}: no clock to lay it beside the other fan-out traces (a .nettrace is needed)");
}
