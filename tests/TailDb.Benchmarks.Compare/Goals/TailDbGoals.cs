namespace TailDb.Benchmarks.Compare.Goals;

/// <summary>TailDb's goals, naming the benchmarks of tests/TailDb.Benchmarks by FullName.</summary>
public static class TailDbGoals
{
    private const string Ns = "TailDb.Benchmarks.";

    public static IReadOnlyList<Goal> All { get; } =
    [
        // Issue 25 tightened it from 1.3x (issue 12) to 1.2x. Each row's fastest process: this VM's
        // vCPUs take turns at two speeds (23 and 36 ns for the same bare loop), a process keeps one.
        new("Get hit, zero-copy TryGet / bare ConcurrentDictionary lookup + copy (events off; each row's fastest process)",
            Ns + "Gets.GetHitBenchmarks.ZeroCopyTryGet(Events: False)", Ns + "Gets.GetHitBenchmarks.BareDictionaryLookupAndCopy(Events: False)",
            GoalKind.TimeAtMost, 1.2, GoalStatistic.FastestProcess),
        new("Get hit, zero-copy TryGet allocated bytes/op (events off)",
            Ns + "Gets.GetHitBenchmarks.ZeroCopyTryGet(Events: False)", null, GoalKind.AllocatedAtMost, 0),
        new("Get miss, TryGet / raw RandomAccess.Read of the same bytes",
            Ns + "Gets.GetMissBenchmarks.ZeroCopyTryGet", Ns + "Gets.GetMissBenchmarks.RawRandomAccessRead",
            GoalKind.TimeAtMost, 2.0),
        new("Put Fsync (group commit), 8 writers: throughput / raw append+fsync loop",
            Ns + "Puts.PutBenchmarks.PutFsync(Writers: 8)", Ns + "Puts.PutBenchmarks.RawAppendFsync(Writers: 8)",
            GoalKind.SpeedupAtLeast, 0.5),
        new("Reopen, speed-up of hint files over a full scan",
            Ns + "Reopen.ReopenBenchmarks.ReopenWithHints", Ns + "Reopen.ReopenBenchmarks.ReopenFullScan",
            GoalKind.SpeedupAtLeast, 5.0),
        new("Analyzer (`slowest` pipeline), speed-up over TraceLog.CreateFromEventPipeDataFile",
            Ns + "Analysis.AnalyzerBenchmarks.AnalyzerSlowest", Ns + "Analysis.AnalyzerBenchmarks.TraceLogConvert",
            GoalKind.SpeedupAtLeast, 2.0),
        new("Stack samples (fast .nettrace reader), speed-up over TraceLog.CreateFromEventPipeDataFile",
            Ns + "Analysis.AnalyzerBenchmarks.FastStackReader", Ns + "Analysis.AnalyzerBenchmarks.TraceLogConvert",
            GoalKind.SpeedupAtLeast, 2.0),
        new("EventPipeEventSource streaming pass, speed-up over TraceLog.CreateFromEventPipeDataFile",
            Ns + "Analysis.AnalyzerBenchmarks.EventPipeStreamingPass", Ns + "Analysis.AnalyzerBenchmarks.TraceLogConvert",
            GoalKind.SpeedupAtLeast, 2.0),
        new("Key directory lookup of a present key, KeyDir / the ConcurrentDictionary layout it replaced",
            Ns + "KeyDirs.KeyDirLookupBenchmarks.KeyDirHit", Ns + "KeyDirs.KeyDirLookupBenchmarks.ConcurrentDictionaryHit",
            GoalKind.TimeAtMost, 1.0),
        new("Key directory lookup of an absent key, KeyDir / the ConcurrentDictionary layout it replaced",
            Ns + "KeyDirs.KeyDirLookupBenchmarks.KeyDirMiss", Ns + "KeyDirs.KeyDirLookupBenchmarks.ConcurrentDictionaryMiss",
            GoalKind.TimeAtMost, 1.0),
        .. PeerGoals(),
    ];

    /// <summary>TailDb's throughput over FASTER KV's on the same workload (Peers/PeerBenchmarks): a
    /// goal on the Get hit (issue 12), the writes and the mix reported beside it.</summary>
    private static IEnumerable<Goal> PeerGoals()
    {
        const string peer = Ns + "Peers.PeerBenchmarks.";
        foreach (var threads in new[] { 1, 2 })
        {
            var t = $"(Threads: {threads})";
            yield return new($"Peer, Get hit, {threads} thread(s): TailDb throughput / FASTER KV",
                peer + "TailDbGetHit" + t, peer + "FasterGetHit" + t, GoalKind.SpeedupAtLeast, 1.0);
            yield return new($"Peer, Get hit, {threads} thread(s): bare ConcurrentDictionary<byte[], byte[]> lookup + copy (the layout the cache had until 2026-11-28, no TailDb code) / FASTER KV",
                peer + "BareDictionaryGetHit" + t, peer + "FasterGetHit" + t, GoalKind.SpeedupReported, 0);
            yield return new($"Peer, Put/Upsert (durability none), {threads} thread(s): TailDb throughput / FASTER KV",
                peer + "TailDbPut" + t, peer + "FasterUpsert" + t, GoalKind.SpeedupReported, 0);
            yield return new($"Peer, 90/10 Get/write mix, {threads} thread(s): TailDb throughput / FASTER KV",
                peer + "TailDbMix" + t, peer + "FasterMix" + t, GoalKind.SpeedupReported, 0);
        }
    }
}
