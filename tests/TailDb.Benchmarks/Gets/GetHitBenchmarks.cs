using System.Buffers;
using System.Collections.Concurrent;
using BenchmarkDotNet.Attributes;
using TailDb.Benchmarks.Configuration;
using TailDb.Benchmarks.Fixtures;

namespace TailDb.Benchmarks.Gets;

/// <summary>
/// A Get served from the cache against the floor under it: a bare ConcurrentDictionary lookup of
/// the same key plus a copy of the same value into the same reused buffer. With Events=true an
/// in-process listener enables TailDb and TplEventSource 0x80, as a recording does (the
/// dictionary emits nothing, so its ratio is the full cost of tracing a request).
/// Goals: zero-copy TryGet &lt;= 1.2x the dictionary (issue 25; 1.3x before) and 0 B allocated with events off.
/// <para>
/// What would move a row between BenchmarkDotNet's processes is pinned, the same for both sides:
/// the destination starts on a cache line (<see cref="AlignedBufferWriter"/>); the dictionary's
/// keys and values, and the store's cached keys and slots, are on the pinned object heap, made in
/// key order in every process (the store's are miss fills, which the cache pins, as a server's
/// first reads make them) and never moved by a GC; the dictionary hashes with a fixed seed.
/// </para>
/// <para>
/// So is the tier-1 code: each row's setup runs its lookup through the JIT's tiers
/// (<see cref="TieredWarmUp"/>) before BenchmarkDotNet calls the row, so the row's method is
/// compiled with its callees' profiles complete, and each row's process makes only what its row
/// reads (the bare row no store, the store rows no dictionary).
/// </para>
/// <para>
/// What is left moves with the process and with the machine: the same row measured 36.8-40.3 ns
/// (bare) and 41.9-46.0 ns (store) from one BenchmarkDotNet process to the next on the same code,
/// while a process's own iterations agree within 0.5 ns; and this shared VM has slow minutes (the
/// bare row 23-26 ns or 41-46 ns, the store row 26-30 ns or 44-50 ns) that fell on whichever row's
/// processes ran then (docs/benchmarks.md). So each row runs in three processes, one per
/// <see cref="Round"/>, and the rounds interleave the rows in time: BenchmarkDotNet runs every
/// method's round 1 before any method's round 2 (its order is parameters, then job, then method).
/// The comparison pools a row's rounds (TailDb.Benchmarks.Compare's ProcessRounds), so neither one
/// process's layout nor one slow minute decides a run's ratio.
/// </para>
/// </summary>
[BenchmarkCategory(Categories.GetHit)]
public class GetHitBenchmarks
{
    private readonly AlignedBufferWriter _destination = new(SuiteScale.ValueBytes * 2);
    private KeySet _keys = null!;
    private ConcurrentDictionary<byte[], byte[]> _dictionary = null!;
    private ConcurrentDictionary<byte[], byte[]>.AlternateLookup<ReadOnlySpan<byte>> _lookup;
    private ScratchDirectory? _directory;
    private TailDbStore? _store;
    private TracingListener? _listener;
    private int _next;

    [Params(false, true)]
    public bool Events { get; set; }

    /// <summary>Not read by the code: which of the row's three processes this is (see the class
    /// summary; the comparison pools the rounds by this parameter's name).</summary>
    [Params(1, 2, 3)]
    public int Round { get; set; }

    /// <summary>
    /// The bare row's process holds only the dictionary: no store is made, so nothing but the bare
    /// comparer reaches the dictionary's shared lookup code while tiering collects its profile.
    /// </summary>
    [GlobalSetup(Target = nameof(BareDictionaryLookupAndCopy))]
    public void SetupBare()
    {
        _keys = new KeySet(SuiteScale.Current.HitKeys, SuiteScale.KeyBytes, SuiteScale.ValueBytes);
        _dictionary = new ConcurrentDictionary<byte[], byte[]>(Environment.ProcessorCount, _keys.Count * 2, BareByteKeyComparer.Instance);
        for (var i = 0; i < _keys.Count; i++)
        {
            _dictionary[AlignedBufferWriter.Pinned(_keys.Keys[i])] = AlignedBufferWriter.Pinned(_keys.Values[i]);
        }

        _lookup = _dictionary.GetAlternateLookup<ReadOnlySpan<byte>>();
        TieredWarmUp.Run(() => _lookup.TryGetValue(NextKey(), out _));
    }

    [GlobalSetup(Targets = [nameof(ZeroCopyTryGet), nameof(CopyingGet)])]
    public void SetupStore()
    {
        _keys = new KeySet(SuiteScale.Current.HitKeys, SuiteScale.KeyBytes, SuiteScale.ValueBytes);
        _directory = new ScratchDirectory("gethit");
        // Invalidate: a Put leaves the key uncached, so the warming Get below fills it (pinned).
        _store = TailDbStore.Open(new TailDbOptions { Directory = _directory.Path, ExpectedKeyCount = _keys.Count * 2, CacheWrites = CacheWrites.Invalidate });
        for (var i = 0; i < _keys.Count; i++)
        {
            _store.Put(_keys.Keys[i], _keys.Values[i]);
        }

        // Every key once, in key order, so each is in the cache before the first measured Get.
        for (var i = 0; i < _keys.Count; i++)
        {
            _destination.ResetWrittenCount();
            if (_store.TryGet(_keys.Keys[i], _destination) != ReadStatus.Hit && _store.TryGet(_keys.Keys[i], _destination) != ReadStatus.Hit)
            {
                throw new InvalidOperationException("a Get after Put and a warming Get was not a cache hit: this benchmark would measure misses");
            }
        }

        if (Events)
        {
            _listener = new TracingListener();
        }

        TieredWarmUp.Run(() =>
        {
            _destination.ResetWrittenCount();
            _store.TryGet(NextKey(), _destination);
        });
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        _listener?.Dispose();
        _store?.Dispose();
        _directory?.Dispose();
    }

    private byte[] NextKey() => _keys.Keys[_keys.Order[_next++ & (_keys.Count - 1)]];

    [Benchmark(Baseline = true)]
    public int BareDictionaryLookupAndCopy()
    {
        _destination.ResetWrittenCount();
        if (!_lookup.TryGetValue(NextKey(), out var value))
        {
            return -1;
        }

        value.CopyTo(_destination.GetSpan(value.Length));
        _destination.Advance(value.Length);
        return _destination.WrittenCount;
    }

    [Benchmark]
    public ReadStatus ZeroCopyTryGet()
    {
        _destination.ResetWrittenCount();
        return _store!.TryGet(NextKey(), _destination);
    }

    [Benchmark]
    public byte[]? CopyingGet() => _store!.Get(NextKey());
}
