using System.Buffers;
using System.Collections.Concurrent;
using System.Numerics;
using System.Runtime.InteropServices;
using BenchmarkDotNet.Attributes;
using FASTER.core;
using TailDb.Benchmarks.Configuration;
using TailDb.Benchmarks.Fixtures;

namespace TailDb.Benchmarks.Peers;

/// <summary>
/// TailDb beside a real peer, Microsoft FASTER KV, on one workload in one run: 8-byte keys and
/// 256-byte values, every value memory resident (TailDb's cache holds them all; FASTER's hybrid log
/// holds them all in its mutable region, over a null device), 1 and 2 threads. Operations: Get hit,
/// Upsert/Put with durability none, and a mix of 90% Gets and 10% writes. FASTER is each
/// category's baseline, so BenchmarkDotNet's Ratio is TailDb's time per operation over FASTER's,
/// the inverse of their throughput ratio. Goal: TailDb's Get hit throughput >= 1.0x FASTER's.
/// <para>
/// Each side uses its fastest public API: TailDb's zero-copy TryGet into a reused buffer per
/// thread; FASTER's fixed-size blittable key and value with a ClientSession per thread, whose
/// functions type is concrete (calls are not through the interface). Every invocation runs
/// <see cref="Operations"/> operations split evenly over the threads (<see cref="WriterGang"/>),
/// each thread walking its own stretch of the seeded random key order.
/// </para>
/// <para>
/// A third Get hit row, <see cref="BareDictionaryGetHit"/>, runs no TailDb code: a bare
/// ConcurrentDictionary of byte[] keys to one byte[] value per key, looked up by span and copied
/// into the same buffer. That was the layout of TailDb's value cache until 2026-11-28, and is
/// still the shape of its table (chained nodes, a key array and a slot array per entry), so the
/// row separates what the layout costs against FASTER's from what TailDb's own code adds.
/// </para>
/// </summary>
public class PeerBenchmarks
{
    public const int Operations = 1 << 15;

    /// <summary>FASTER's bytes per record with these types: its 8-byte header, key and value.</summary>
    private const int FasterRecordBytes = 8 + sizeof(long) + Value256.Length;

    private PeerKeys _keys = null!;
    private WriterGang _gang = null!;
    private Lane[] _lanes = null!;
    private ScratchDirectory? _directory;
    private TailDbStore? _store;
    private FasterKV<long, Value256>? _faster;
    private ConcurrentDictionary<byte[], byte[]>.AlternateLookup<ReadOnlySpan<byte>> _dictionary;
    private Action<int> _get = null!;
    private Action<int> _write = null!;
    private Action<int> _mix = null!;

    [Params(1, 2)]
    public int Threads { get; set; }

    private int Slice => Operations / Threads;

    /// <summary>One thread's state: its place in the key order, its output buffer and its session.</summary>
    private sealed class Lane
    {
        public int Cursor;
        public long NotHits;
        public Value256 Output;
        public readonly ArrayBufferWriter<byte> Destination = new(Value256.Length * 2);
        public ClientSession<long, Value256, Value256, Value256, Empty, SimpleFunctions<long, Value256>>? Session;
    }

    private void SetupLanes()
    {
        _keys = new PeerKeys(SuiteScale.Current.PeerKeys);
        _gang = new WriterGang(Threads);
        _lanes = new Lane[Threads];
        for (var t = 0; t < Threads; t++)
        {
            _lanes[t] = new Lane { Cursor = t * (_keys.Count / Threads) };
        }
    }

    [GlobalSetup(Targets = [nameof(FasterGetHit), nameof(FasterUpsert), nameof(FasterMix)])]
    public void SetupFaster()
    {
        SetupLanes();
        // Index: one 64-byte bucket (7 entries) per key. Log: 4x the records, in 4 MiB pages, 90%
        // of it mutable, so every Upsert of a loaded key is in place and nothing is ever evicted.
        var memory = (long)BitOperations.RoundUpToPowerOf2((ulong)_keys.Count * FasterRecordBytes * 4);
        _faster = new FasterKV<long, Value256>(new FasterKVSettings<long, Value256>
        {
            IndexSize = (long)_keys.Count * 64,
            LogDevice = new NullDevice(),
            PageSize = 1L << 22,
            MemorySize = memory,
            MutableFraction = 0.9,
        });
        var functions = new SimpleFunctions<long, Value256>();
        foreach (var lane in _lanes)
        {
            lane.Session = _faster.For(functions).NewSession<SimpleFunctions<long, Value256>>();
        }

        var load = _lanes[0].Session!;
        for (var i = 0; i < _keys.Count; i++)
        {
            load.Upsert(ref _keys.Visit[i], ref _keys.Values[PeerKeys.ValueIndex(i)]);
        }

        for (var i = 0; i < _keys.Count; i++)
        {
            if (!load.Read(ref _keys.Visit[i], ref _lanes[0].Output).Found)
            {
                throw new InvalidOperationException("a loaded key was not found in FASTER's memory: this benchmark would measure misses");
            }
        }

        _get = lane => FasterGets(_lanes[lane]);
        _write = lane => FasterUpserts(_lanes[lane]);
        _mix = lane => FasterMixed(_lanes[lane]);
    }

    [GlobalSetup(Targets = [nameof(TailDbGetHit), nameof(TailDbPut), nameof(TailDbMix)])]
    public void SetupTailDb()
    {
        SetupLanes();
        _directory = new ScratchDirectory("peer");
        // A cache entry costs its key, value + ValueCache.Header (8 B) and ValueCache.EntryOverhead (96 B): 512 B per key
        // leaves room for every value, so no Get misses and nothing is evicted.
        _store = TailDbStore.Open(new TailDbOptions
        {
            Directory = _directory.Path,
            CacheCapacityBytes = _keys.Count * 512L,
            ExpectedKeyCount = _keys.Count,
            Durability = Durability.None,
        });
        for (var i = 0; i < _keys.Count; i++)
        {
            _store.Put(KeyBytes(in _keys.Visit[i]), _keys.ValueBytes[PeerKeys.ValueIndex(i)]);
        }

        var destination = _lanes[0].Destination;
        for (var i = 0; i < _keys.Count; i++)
        {
            destination.ResetWrittenCount();
            if (_store.TryGet(KeyBytes(in _keys.Visit[i]), destination) != ReadStatus.Hit &&
                _store.TryGet(KeyBytes(in _keys.Visit[i]), destination) != ReadStatus.Hit)
            {
                throw new InvalidOperationException("a Get after Put and a warming Get was not a cache hit: this benchmark would measure misses");
            }
        }

        _get = lane => TailDbGets(_lanes[lane]);
        _write = lane => TailDbPuts(_lanes[lane]);
        _mix = lane => TailDbMixed(_lanes[lane]);
    }

    [GlobalSetup(Target = nameof(BareDictionaryGetHit))]
    public void SetupBareDictionary()
    {
        SetupLanes();
        var dictionary = new ConcurrentDictionary<byte[], byte[]>(Environment.ProcessorCount * 4, _keys.Count, BareByteKeyComparer.Instance);
        for (var i = 0; i < _keys.Count; i++)
        {
            // One array per value, as the cache keeps them (its slot is the value plus a state byte).
            dictionary[KeyBytes(in _keys.Visit[i]).ToArray()] = _keys.ValueBytes[PeerKeys.ValueIndex(i)].ToArray();
        }

        _dictionary = dictionary.GetAlternateLookup<ReadOnlySpan<byte>>();
        _get = lane => DictionaryGets(_lanes[lane]);
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        var notHits = _lanes.Sum(l => l.NotHits);
        foreach (var lane in _lanes)
        {
            lane.Session?.Dispose();
        }

        _gang.Dispose();
        _faster?.Dispose();
        _store?.Dispose();
        _directory?.Dispose();
        if (notHits > 0)
        {
            throw new InvalidOperationException($"{notHits} measured Gets were not memory hits: the figures are not the workload's");
        }
    }

    [Benchmark(Baseline = true, OperationsPerInvoke = Operations)]
    [BenchmarkCategory(Categories.PeerGetHit)]
    public void FasterGetHit() => _gang.Run(_get);

    [Benchmark(OperationsPerInvoke = Operations)]
    [BenchmarkCategory(Categories.PeerGetHit)]
    public void TailDbGetHit() => _gang.Run(_get);

    [Benchmark(OperationsPerInvoke = Operations)]
    [BenchmarkCategory(Categories.PeerGetHit)]
    public void BareDictionaryGetHit() => _gang.Run(_get);

    [Benchmark(Baseline = true, OperationsPerInvoke = Operations)]
    [BenchmarkCategory(Categories.PeerUpsert)]
    public void FasterUpsert() => _gang.Run(_write);

    [Benchmark(OperationsPerInvoke = Operations)]
    [BenchmarkCategory(Categories.PeerUpsert)]
    [DriftsWith(typeof(Puts.PutBenchmarks), nameof(Puts.PutBenchmarks.RawAppend))] // FASTER's upsert stays in memory; a Put writes its record
    public void TailDbPut() => _gang.Run(_write);

    [Benchmark(Baseline = true, OperationsPerInvoke = Operations)]
    [BenchmarkCategory(Categories.PeerMix)]
    public void FasterMix() => _gang.Run(_mix);

    [Benchmark(OperationsPerInvoke = Operations)]
    [BenchmarkCategory(Categories.PeerMix)]
    [DriftsWith(typeof(Puts.PutBenchmarks), nameof(Puts.PutBenchmarks.RawAppend))] // its tenth-part writes append records
    public void TailDbMix() => _gang.Run(_mix);

    /// <summary>The 8 bytes of a key as TailDb takes them, without a copy.</summary>
    private static ReadOnlySpan<byte> KeyBytes(ref readonly long key) => MemoryMarshal.AsBytes(new ReadOnlySpan<long>(in key));

    /// <summary>Every tenth visiting position is a write: 90% Gets, 10% writes.</summary>
    private static bool IsWrite(int position) => position % 10 == 9;

    private void FasterGets(Lane lane)
    {
        var session = lane.Session!;
        var visit = _keys.Visit;
        var (first, last) = Advance(lane);
        for (var p = first; p < last; p++)
        {
            if (!session.Read(ref visit[p & _keys.Mask], ref lane.Output).Found)
            {
                lane.NotHits++;
            }
        }
    }

    private void FasterUpserts(Lane lane)
    {
        var session = lane.Session!;
        var visit = _keys.Visit;
        var (first, last) = Advance(lane);
        for (var p = first; p < last; p++)
        {
            session.Upsert(ref visit[p & _keys.Mask], ref _keys.Values[PeerKeys.ValueIndex(p)]);
        }
    }

    private void FasterMixed(Lane lane)
    {
        var session = lane.Session!;
        var visit = _keys.Visit;
        var (first, last) = Advance(lane);
        for (var p = first; p < last; p++)
        {
            ref var key = ref visit[p & _keys.Mask];
            if (IsWrite(p))
            {
                session.Upsert(ref key, ref _keys.Values[PeerKeys.ValueIndex(p)]);
            }
            else if (!session.Read(ref key, ref lane.Output).Found)
            {
                lane.NotHits++;
            }
        }
    }

    private void TailDbGets(Lane lane)
    {
        var store = _store!;
        var destination = lane.Destination;
        var visit = _keys.Visit;
        var (first, last) = Advance(lane);
        for (var p = first; p < last; p++)
        {
            destination.ResetWrittenCount();
            if (store.TryGet(KeyBytes(in visit[p & _keys.Mask]), destination) != ReadStatus.Hit)
            {
                lane.NotHits++;
            }
        }
    }

    private void DictionaryGets(Lane lane)
    {
        var destination = lane.Destination;
        var visit = _keys.Visit;
        var (first, last) = Advance(lane);
        for (var p = first; p < last; p++)
        {
            destination.ResetWrittenCount();
            if (!_dictionary.TryGetValue(KeyBytes(in visit[p & _keys.Mask]), out var value))
            {
                lane.NotHits++;
                continue;
            }

            value.CopyTo(destination.GetSpan(value.Length));
            destination.Advance(value.Length);
        }
    }

    private void TailDbPuts(Lane lane)
    {
        var store = _store!;
        var visit = _keys.Visit;
        var (first, last) = Advance(lane);
        for (var p = first; p < last; p++)
        {
            store.Put(KeyBytes(in visit[p & _keys.Mask]), _keys.ValueBytes[PeerKeys.ValueIndex(p)]);
        }
    }

    private void TailDbMixed(Lane lane)
    {
        var store = _store!;
        var destination = lane.Destination;
        var visit = _keys.Visit;
        var (first, last) = Advance(lane);
        for (var p = first; p < last; p++)
        {
            var key = KeyBytes(in visit[p & _keys.Mask]);
            if (IsWrite(p))
            {
                store.Put(key, _keys.ValueBytes[PeerKeys.ValueIndex(p)]);
                continue;
            }

            destination.ResetWrittenCount();
            if (store.TryGet(key, destination) != ReadStatus.Hit)
            {
                lane.NotHits++;
            }
        }
    }

    /// <summary>This lane's next <see cref="Slice"/> positions in the key order (positions wrap
    /// with the key mask; the lanes start a 1/Threads of the keys apart).</summary>
    private (int First, int Last) Advance(Lane lane)
    {
        var first = lane.Cursor;
        lane.Cursor = (first + Slice) & _keys.Mask;
        return (first, first + Slice);
    }
}
