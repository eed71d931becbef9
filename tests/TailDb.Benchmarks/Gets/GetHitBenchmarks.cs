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
/// What is left is the machine's: this VM's two vCPUs take turns running the same loop at two
/// speeds, for minutes at a time (a bare lookup-and-copy loop at 23 ns on one and 36 ns on the
/// other, then both at 23 ns), and a process's thread stays on the vCPU it started on, so each
/// process measures one speed throughout (its iterations agree within 0.5 ns) and the next one
/// may measure the other (docs/benchmarks.md, "The Get-hit rows' two speeds: the vCPUs"). So each
/// row runs in five processes, one per <see cref="Round"/>; the rounds interleave the rows in time
/// (BenchmarkDotNet runs every method's round 1 before any method's round 2: its order is
/// parameters, then job, then method); the comparison pools a row's rounds (TailDb.Benchmarks.
/// Compare's ProcessRounds), and the goal compares each row's fastest process. And each setup ends
/// by pinning its thread to the vCPU that runs its lookup fastest at that moment (the bare row's
/// own call; TryGet for both store rows, whose setup is shared) (<see cref="FastestCpu"/>), so a
/// process does not keep the slow vCPU it happened to start on.
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

    /// <summary>Not read by the code: which of the row's five processes this is (see the class
    /// summary; the comparison pools the rounds by this parameter's name).</summary>
    [Params(1, 2, 3, 4, 5)]
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
        FastestCpu.PinTo(() => BareDictionaryLookupAndCopy());
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
        FastestCpu.PinTo(() => ZeroCopyTryGet());
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
