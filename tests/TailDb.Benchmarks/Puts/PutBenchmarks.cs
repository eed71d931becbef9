using BenchmarkDotNet.Attributes;
using TailDb.Benchmarks.Configuration;
using TailDb.Benchmarks.Fixtures;

namespace TailDb.Benchmarks.Puts;

/// <summary>
/// Puts at 1 and 8 concurrent writers against the same number of raw positional appends of
/// records of the same size to one file (and, for Fsync, each followed by its own fsync: what
/// durability costs without group commit). Every invocation runs <see cref="Operations"/> writes
/// split evenly over the writers, so the reported time is total / operations, the inverse of
/// throughput. Goal: Fsync at 8 writers reaches >= 0.5x the raw loop's throughput (time ratio &lt;= 2).
/// </summary>
public class PutBenchmarks
{
    public const int Operations = 256;

    private KeySet _keys = null!;
    private WriterGang _gang = null!;
    private ScratchDirectory _directory = null!;
    private RawAppendLog? _raw;
    private TailDbStore? _store;
    private Action<int> _work = null!;

    [Params(1, 8)]
    public int Writers { get; set; }

    private int Slice => Operations / Writers;

    private void SetupCommon()
    {
        _keys = new KeySet(Operations, SuiteScale.KeyBytes, SuiteScale.ValueBytes);
        _gang = new WriterGang(Writers);
        _directory = new ScratchDirectory("put");
    }

    private void SetupRaw(bool fsync)
    {
        SetupCommon();
        _raw = new RawAppendLog(_directory.File("raw.log"), TailDbRecord.Bytes(SuiteScale.KeyBytes, SuiteScale.ValueBytes));
        var raw = _raw;
        var slice = Slice;
        _work = _ =>
        {
            for (var i = 0; i < slice; i++)
            {
                raw.Append(fsync);
            }
        };
    }

    private void SetupStore(Durability durability)
    {
        SetupCommon();
        _store = TailDbStore.Open(new TailDbOptions { Directory = _directory.Path, Durability = durability });
        var store = _store;
        var keys = _keys;
        var slice = Slice;
        // Each writer overwrites its own slice of keys: no two writers race on one key.
        _work = writer =>
        {
            var first = writer * slice;
            for (var i = first; i < first + slice; i++)
            {
                store.Put(keys.Keys[i], keys.Values[i]);
            }
        };
    }

    [GlobalSetup(Target = nameof(RawAppend))]
    public void SetupRawAppend() => SetupRaw(fsync: false);

    [GlobalSetup(Target = nameof(RawAppendFsync))]
    public void SetupRawAppendFsync() => SetupRaw(fsync: true);

    [GlobalSetup(Target = nameof(PutNone))]
    public void SetupPutNone() => SetupStore(Durability.None);

    [GlobalSetup(Target = nameof(PutFsync))]
    public void SetupPutFsync() => SetupStore(Durability.Fsync);

    [GlobalCleanup]
    public void Cleanup()
    {
        _gang.Dispose();
        _store?.Dispose();
        _raw?.Dispose();
        _directory.Dispose();
    }

    [Benchmark(Baseline = true, OperationsPerInvoke = Operations)]
    [BenchmarkCategory(Categories.PutNone)]
    public void RawAppend() => _gang.Run(_work);

    [Benchmark(OperationsPerInvoke = Operations)]
    [BenchmarkCategory(Categories.PutNone)]
    public void PutNone() => _gang.Run(_work);

    [Benchmark(Baseline = true, OperationsPerInvoke = Operations)]
    [BenchmarkCategory(Categories.PutFsync)]
    [AllocationNoise(16, "the writer gang's wake-ups allocate now and then, and fsync's timing decides how often per operation: two quiet fresh-clone CI runs measured 0 and 1 B/op")]
    public void RawAppendFsync() => _gang.Run(_work);

    [Benchmark(OperationsPerInvoke = Operations)]
    [BenchmarkCategory(Categories.PutFsync)]
    [AllocationNoise(32, "the memory diagnoser's one iteration holds only a few hundred fsynced Puts, so a stray allocation anywhere in the process shows per operation: identical runs measured 224/225 and 225/230 B/op, and 160/184 B/op (one CI run of 160 B/op code; the same code gave 160 B/op twice on rerun)")]
    public void PutFsync() => _gang.Run(_work);
}
