namespace TailDb.Benchmarks.Fixtures;

/// <summary>
/// One category per comparison: each holds one baseline (Baseline = true) and the TailDb figures
/// BenchmarkDotNet prints as ratios to it (the config groups by category).
/// </summary>
public static class Categories
{
    public const string GetHit = "GetHit";
    public const string GetHitBreakdown = "GetHit-Breakdown";
    public const string GetMiss = "GetMiss";
    public const string PutNone = "Put-None";
    public const string PutFsync = "Put-Fsync";
    public const string Reopen = "Reopen";
    public const string Analyzer = "Analyzer";
    public const string EtwReader = "EtwReader";
    public const string Traced = "Traced";
    public const string KeyDirBuild = "KeyDir-Build";
    public const string KeyDirHit = "KeyDir-Hit";
    public const string KeyDirMiss = "KeyDir-Miss";

    // TailDb beside FASTER KV on one workload (Peers/PeerBenchmarks): FASTER is each one's baseline.
    public const string PeerGetHit = "Peer-GetHit";
    public const string PeerUpsert = "Peer-Upsert";
    public const string PeerMix = "Peer-Mix";
}
