using System.Buffers;
using BenchmarkDotNet.Attributes;
using Microsoft.Win32.SafeHandles;
using TailDb.Benchmarks.Configuration;
using TailDb.Benchmarks.Fixtures;

namespace TailDb.Benchmarks.Gets;

/// <summary>
/// A Get the cache cannot serve (cache disabled) against a raw RandomAccess.Read of the same
/// record's bytes from the same segment file, visiting keys in the same seeded random order.
/// Both read through the OS page cache (the file was just written), so the ratio is TailDb's
/// own overhead on a miss: index lookup, CRC checks, events. Goal: &lt;= 2x the raw read.
/// </summary>
[BenchmarkCategory(Categories.GetMiss)]
public class GetMissBenchmarks
{
    private readonly ArrayBufferWriter<byte> _destination = new(SuiteScale.ValueBytes * 2);
    private KeySet _keys = null!;
    private ScratchDirectory _directory = null!;
    private TailDbStore _store = null!;
    private SafeFileHandle _segment = null!;
    private long[] _offsets = null!;
    private byte[] _record = null!;
    private int _next;

    [GlobalSetup]
    public void Setup()
    {
        _keys = new KeySet(SuiteScale.Current.MissKeys, SuiteScale.KeyBytes, SuiteScale.ValueBytes);
        _directory = new ScratchDirectory("getmiss");
        _store = TailDbStore.Open(new TailDbOptions
        {
            Directory = _directory.Path,
            CacheCapacityBytes = 0,
            ExpectedKeyCount = _keys.Count * 2,
        });
        for (var i = 0; i < _keys.Count; i++)
        {
            _store.Put(_keys.Keys[i], _keys.Values[i]);
        }

        // While the store is open its directory also holds the next segment file, made ahead of the
        // next rotation and holding only its header: not a file the keys can be in.
        var segments = Directory.GetFiles(_directory.Path, "*.seg").Where(f => new FileInfo(f).Length > TailDbRecord.FirstRecordOffset).ToArray();
        if (segments.Length != 1)
        {
            throw new InvalidOperationException($"expected the keys in one segment file, found {segments.Length}: the raw read would not read the same bytes");
        }

        // One writer, keys written once in index order, records of one size: key i's record
        // starts right after i earlier records. Checked below against the file itself.
        var recordBytes = TailDbRecord.Bytes(SuiteScale.KeyBytes, SuiteScale.ValueBytes);
        _record = new byte[recordBytes];
        _segment = File.OpenHandle(segments[0], FileMode.Open, FileAccess.Read, FileShare.ReadWrite);
        _offsets = new long[_keys.Count];
        for (var i = 0; i < _keys.Count; i++)
        {
            _offsets[i] = TailDbRecord.FirstRecordOffset + (long)i * recordBytes;
        }

        for (var i = 0; i < _keys.Count; i += Math.Max(1, _keys.Count / 64))
        {
            RandomAccess.Read(_segment, _record, _offsets[i]);
            var body = _record.AsSpan(recordBytes - SuiteScale.KeyBytes - SuiteScale.ValueBytes);
            if (!body[..SuiteScale.KeyBytes].SequenceEqual(_keys.Keys[i]) || !body[SuiteScale.KeyBytes..].SequenceEqual(_keys.Values[i]))
            {
                throw new InvalidOperationException($"key {i} is not at offset {_offsets[i]} of {segments[0]}: the record layout changed");
            }
        }

        _destination.ResetWrittenCount();
        if (_store.TryGet(_keys.Keys[0], _destination) != ReadStatus.Miss)
        {
            throw new InvalidOperationException("with the cache disabled a Get was not a Miss: this benchmark would measure hits");
        }
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        _segment.Dispose();
        _store.Dispose();
        _directory.Dispose();
    }

    [Benchmark(Baseline = true)]
    public int RawRandomAccessRead() => RandomAccess.Read(_segment, _record, _offsets[_keys.Order[_next++ % _keys.Count]]);

    [Benchmark]
    public ReadStatus ZeroCopyTryGet()
    {
        _destination.ResetWrittenCount();
        return _store.TryGet(_keys.Keys[_keys.Order[_next++ % _keys.Count]], _destination);
    }
}
