using BenchmarkDotNet.Attributes;
using TailDb.Benchmarks.Configuration;
using TailDb.Benchmarks.Fixtures;

namespace TailDb.Benchmarks.Reopen;

/// <summary>
/// Opening a store of <see cref="SuiteScale.ReopenKeys"/> keys (1,000,000 in the full run) with
/// 16 B keys: with the hint files Compact writes (keys and offsets only) against a full scan of
/// the same segment files with the hints deleted (every record read and CRC-checked). Goal: hints
/// >= 5x faster. The derived classes fix the value size; each is its own class (not a [Params])
/// so the 64 B benchmarks keep the names the committed baseline and the goals use.
/// </summary>
[BenchmarkCategory(Categories.Reopen)]
public abstract class ReopenBenchmarkBase
{
    /// <summary>Bytes of every value written.</summary>
    protected abstract int ValueBytes { get; }

    private ScratchDirectory _hinted = null!;
    private ScratchDirectory _scanned = null!;

    [GlobalSetup]
    public void Setup()
    {
        var keys = SuiteScale.Current.ReopenKeys;
        _hinted = new ScratchDirectory("reopen-hints");
        _scanned = new ScratchDirectory("reopen-scan");
        var key = new byte[SuiteScale.KeyBytes];
        var value = new byte[ValueBytes];
        var random = new Random(42);
        using (var store = TailDbStore.Open(new TailDbOptions { Directory = _hinted.Path, ExpectedKeyCount = keys, CacheCapacityBytes = 0 }))
        {
            for (var i = 0; i < keys; i++)
            {
                random.NextBytes(key);
                BitConverter.TryWriteBytes(key, i);
                random.NextBytes(value);
                store.Put(key, value);
            }

            store.Compact();
        }

        var hints = 0;
        foreach (var file in Directory.GetFiles(_hinted.Path))
        {
            if (file.EndsWith(".hint", StringComparison.Ordinal))
            {
                hints++;
            }
            else
            {
                File.Copy(file, Path.Combine(_scanned.Path, Path.GetFileName(file)));
            }
        }

        if (hints == 0)
        {
            throw new InvalidOperationException("Compact wrote no .hint file: both benchmarks would scan");
        }

        Verify(_hinted.Path, keys);
        Verify(_scanned.Path, keys);
    }

    private static void Verify(string directory, int keys)
    {
        using var store = Open(directory);
        if (store.CountKeysSlow() != keys)
        {
            throw new InvalidOperationException($"{directory} reopened with {store.CountKeysSlow()} keys, not {keys}");
        }
    }

    private static TailDbStore Open(string directory) =>
        TailDbStore.Open(new TailDbOptions { Directory = directory, ExpectedKeyCount = SuiteScale.Current.ReopenKeys, CacheCapacityBytes = 0, ReadOnly = true });

    [GlobalCleanup]
    public void Cleanup()
    {
        _hinted.Dispose();
        _scanned.Dispose();
    }

    [Benchmark(Baseline = true)]
    public int ReopenFullScan()
    {
        using var store = Open(_scanned.Path);
        return store.Recovery.GetHashCode();
    }

    [Benchmark]
    public int ReopenWithHints()
    {
        using var store = Open(_hinted.Path);
        return store.Recovery.GetHashCode();
    }
}
