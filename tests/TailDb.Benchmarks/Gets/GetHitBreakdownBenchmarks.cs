using System.Buffers;
using System.Collections.Concurrent;
using BenchmarkDotNet.Attributes;
using TailDb.Benchmarks.Configuration;
using TailDb.Benchmarks.Fixtures;
using TailDb.Caching;
using TailDb.Diagnostics;
using TailDb.Storage;

namespace TailDb.Benchmarks.Gets;

/// <summary>
/// What the zero-copy cache hit costs over the bare dictionary lookup and copy, step by step (the
/// issue allows the 1.2x goal to be met by showing where the rest goes). Each row adds one thing
/// the store's hit path does to the row before it, on the same keys in the same order:
/// <list type="number">
/// <item><see cref="BareLookupAndCopy"/>: <see cref="GetHitBenchmarks"/>' baseline.</item>
/// <item><see cref="ThroughTheInterface"/>: the copy goes through <see cref="IBufferWriter{T}"/>, as
/// the store's API takes it (interface calls the JIT cannot devirtualize here).</item>
/// <item><see cref="CacheLookup"/>: the store's <see cref="ValueCache"/> (its slot carries a
/// CLOCK byte, read on every hit, and a version read before and after the copy), a separate call.</item>
/// <item><see cref="CacheLookupChecked"/>: plus the key's validation and the "is anyone
/// observing" check (EventSource, two instruments, the ActivitySource) the store makes first.</item>
/// <item><see cref="StoreTryGet"/>: the store's own method (plus its null and disposed checks).</item>
/// </list>
/// Each group of rows has its own setup, which makes only what its rows read and runs their
/// callee through the JIT's tiers first (<see cref="TieredWarmUp"/>, as in <see cref="GetHitBenchmarks"/>).
/// </summary>
[BenchmarkCategory(Categories.GetHitBreakdown)]
public class GetHitBreakdownBenchmarks
{
    private readonly AlignedBufferWriter _destination = new(SuiteScale.ValueBytes * 2);
#pragma warning disable CA1859 // the interface is the point: the store's API takes one
    private IBufferWriter<byte> _writer = null!;
#pragma warning restore CA1859
    private KeySet _keys = null!;
    private ConcurrentDictionary<byte[], byte[]>.AlternateLookup<ReadOnlySpan<byte>> _lookup;
    private TailDbTelemetry _telemetry = null!;
    private ValueCache _cache = null!;
    private ScratchDirectory? _directory;
    private TailDbStore? _store;
    private int _next;

    /// <summary>The dictionary rows' process holds only the dictionary (as <see cref="GetHitBenchmarks.SetupBare"/>).</summary>
    [GlobalSetup(Targets = [nameof(BareLookupAndCopy), nameof(ThroughTheInterface)])]
    public void SetupDictionary()
    {
        CreateKeys();
        var dictionary = new ConcurrentDictionary<byte[], byte[]>(Environment.ProcessorCount, _keys.Count * 2, BareByteKeyComparer.Instance);
        for (var i = 0; i < _keys.Count; i++)
        {
            dictionary[AlignedBufferWriter.Pinned(_keys.Keys[i])] = AlignedBufferWriter.Pinned(_keys.Values[i]);
        }

        _lookup = dictionary.GetAlternateLookup<ReadOnlySpan<byte>>();
        TieredWarmUp.Run(() => _lookup.TryGetValue(NextKey(), out _));
    }

    /// <summary>The cache rows' process holds the store's <see cref="ValueCache"/> alone, its slots pinned as fills pin them.</summary>
    [GlobalSetup(Targets = [nameof(CacheLookup), nameof(CacheLookupChecked)])]
    public void SetupCache()
    {
        CreateKeys();
        _cache = new ValueCache(long.MaxValue / 4, _keys.Count * 2, _telemetry);
        for (var i = 0; i < _keys.Count; i++)
        {
            _cache.Set(_keys.Keys[i], ValueCache.CreateSlot(_keys.Values[i], pinned: true));
        }

        for (var i = 0; i < _keys.Count; i++)
        {
            if (!_cache.TryGet(_keys.Keys[i], out _))
            {
                throw new InvalidOperationException("a cached key was not a cache hit: this benchmark would measure misses");
            }
        }

        TieredWarmUp.Run(() => _cache.TryGet(NextKey(), out _));
    }

    /// <summary>The store row's process holds the store alone (as <see cref="GetHitBenchmarks.SetupStore"/>).</summary>
    [GlobalSetup(Target = nameof(StoreTryGet))]
    public void SetupStore()
    {
        CreateKeys();
        _directory = new ScratchDirectory("gethit-breakdown");
        // As in GetHitBenchmarks: the store's cached values are its warming Gets' pinned fills.
        _store = TailDbStore.Open(new TailDbOptions { Directory = _directory.Path, ExpectedKeyCount = _keys.Count * 2, CacheWrites = CacheWrites.Invalidate });
        for (var i = 0; i < _keys.Count; i++)
        {
            _store.Put(_keys.Keys[i], _keys.Values[i]);
        }

        for (var i = 0; i < _keys.Count; i++)
        {
            _destination.ResetWrittenCount();
            if (_store.TryGet(_keys.Keys[i], _destination) != ReadStatus.Hit && _store.TryGet(_keys.Keys[i], _destination) != ReadStatus.Hit)
            {
                throw new InvalidOperationException("a warmed key was not a cache hit: this benchmark would measure misses");
            }
        }

        TieredWarmUp.Run(() =>
        {
            _destination.ResetWrittenCount();
            _store.TryGet(NextKey(), _destination);
        });
    }

    private void CreateKeys()
    {
        _writer = _destination;
        _keys = new KeySet(SuiteScale.Current.HitKeys, SuiteScale.KeyBytes, SuiteScale.ValueBytes);
        _telemetry = new TailDbTelemetry();
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        _store?.Dispose();
        _telemetry.Dispose();
        _directory?.Dispose();
    }

    private byte[] NextKey() => _keys.Keys[_keys.Order[_next++ & (_keys.Count - 1)]];

    [Benchmark(Baseline = true)]
    public int BareLookupAndCopy()
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
    public int ThroughTheInterface()
    {
        _destination.ResetWrittenCount();
        if (!_lookup.TryGetValue(NextKey(), out var value))
        {
            return -1;
        }

        value.CopyTo(_writer.GetSpan(value.Length));
        _writer.Advance(value.Length);
        return _destination.WrittenCount;
    }

    [Benchmark]
    public int CacheLookup()
    {
        _destination.ResetWrittenCount();
        if (!_cache.TryGet(NextKey(), out var slot))
        {
            return -1;
        }

        int length = ValueCache.ValueLength(slot);
        if (!ValueCache.TryCopy(slot, _writer.GetSpan(length)[..length]))
        {
            return -1;
        }

        _writer.Advance(length);
        return _destination.WrittenCount;
    }

    [Benchmark]
    public int CacheLookupChecked()
    {
        _destination.ResetWrittenCount();
        var key = NextKey();
        RecordFormat.ValidateKey(key);
        if (_telemetry.Observed() || !_cache.TryGet(key, out var slot))
        {
            return -1;
        }

        int length = ValueCache.ValueLength(slot);
        if (!ValueCache.TryCopy(slot, _writer.GetSpan(length)[..length]))
        {
            return -1;
        }

        _writer.Advance(length);
        return _destination.WrittenCount;
    }

    [Benchmark]
    public ReadStatus StoreTryGet()
    {
        _destination.ResetWrittenCount();
        return _store!.TryGet(NextKey(), _destination);
    }
}
