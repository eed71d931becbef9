using System.Globalization;
using System.Text;
using TailDb.Storage;
using Xunit.Abstractions;

namespace TailDb.Tests.Storage;

/// <summary>
/// Power loss, simulated by <see cref="PowerLossDevice"/>: with Durability.Fsync every acknowledged
/// write survives; with Durability.None acknowledged writes are lost, which shows the simulation
/// discards what was never fsynced (so the Fsync test would catch a missing or early fsync).
/// </summary>
public sealed class PowerLossTests(ITestOutputHelper output) : IDisposable
{
    private const int Writers = 3;
    private readonly TestDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    private sealed record Op(string Key, string? Value);

    /// <param name="asyncThroughAScheduler">
    /// The writers' Puts and Deletes are async and the store has a <see cref="TailDbOptions.DurableWaitersScheduler"/>,
    /// as in the server: fsyncs on the store's flusher thread, acknowledgements through the scheduler.
    /// </param>
    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public void FsyncedWritesSurvivePowerLoss(bool asyncThroughAScheduler)
    {
        var random = new Random(4242);
        var model = new Dictionary<string, string?>(StringComparer.Ordinal);
        long acknowledged = 0;
        int cycles = int.TryParse(Environment.GetEnvironmentVariable("TAILDB_POWERLOSS_CYCLES"), NumberStyles.None, CultureInfo.InvariantCulture, out int n) && n > 0 ? n : 12;
        for (int cycle = 0; cycle < cycles; cycle++)
        {
            (List<Op>[] perThread, int[] acks) = RunUntilPowerLoss(Durability.Fsync, cycle, random.Next(10, 120), asyncThroughAScheduler: asyncThroughAScheduler);
            string restored = DescribeFiles();
            var expected = new Dictionary<string, string?>(model, StringComparer.Ordinal);
            var alternative = new Dictionary<string, string?>(StringComparer.Ordinal);
            for (int t = 0; t < Writers; t++)
            {
                for (int i = 0; i < acks[t]; i++)
                {
                    expected[perThread[t][i].Key] = perThread[t][i].Value;
                }

                acknowledged += acks[t];
                if (perThread[t].Count > acks[t])
                {
                    alternative[perThread[t][acks[t]].Key] = perThread[t][acks[t]].Value;
                }
            }

            using var store = TailDbStore.Open(_dir.Options());
            Assert.Empty(store.Recovery.CorruptRecords);
            foreach (string key in expected.Keys.Union(alternative.Keys))
            {
                string? actual = store.Get(key) is { } bytes ? Encoding.UTF8.GetString(bytes) : null;
                bool ok = actual == expected.GetValueOrDefault(key) || (alternative.TryGetValue(key, out string? maybe) && actual == maybe);
                Assert.True(ok, $"cycle {cycle}: {key} reads '{actual}', acknowledged '{expected.GetValueOrDefault(key)}'; files after the power loss: {restored}; recovery: {Describe(store.Recovery)}");
                model[key] = actual;
            }
        }

        output.WriteLine($"{cycles} simulated power losses, {acknowledged} acknowledged Fsync writes all found");
        Assert.True(acknowledged > cycles);
    }

    [Fact]
    public void CompactionKeepsAnOldValueUntilTheWriteThatSupersededItIsDurable()
    {
        // The race ordered: compaction stops as it opens its output, an overwrite lands meanwhile
        // (Durability.None: appended, nothing fsynced), so the copy leaves the old value out. Once
        // the output commits and the power goes, the key must read the old value or the new one,
        // never nothing (the run that found this lost both).
        var device = new PowerLossDevice();
        var store = TailDbStore.Open(_dir.Options() with { Device = device, Durability = Durability.None, SegmentMaxBytes = 8 * 1024 });
        store.Put("k", "old"u8);
        store.Compact();
        store.Put("other", "x"u8);

        using var copying = new ManualResetEventSlim();
        using var overwritten = new ManualResetEventSlim();
        device.BeforeOpen = path =>
        {
            if (path.EndsWith(Segment.Extension + Segment.TempSuffix, StringComparison.Ordinal))
            {
                copying.Set();
                overwritten.Wait();
            }
        };
        CompactionResult? result = null;
        var compaction = new Thread(() => result = store.Compact());
        compaction.Start();
        Assert.True(copying.Wait(TimeSpan.FromSeconds(30)), "compaction never opened its output");
        store.Put("k", "new"u8);
        overwritten.Set();
        compaction.Join();
        Assert.True(result?.SegmentsCompacted > 0);

        device.PowerOff();
        store.Dispose();
        device.Restore();
        using var reopened = TailDbStore.Open(_dir.Options());
        string? actual = reopened.Get("k") is { } bytes ? Encoding.UTF8.GetString(bytes) : null;
        Assert.True(actual is "old" or "new", $"k reads '{actual ?? "(nothing)"}' after the power loss");
        Assert.Equal("x"u8.ToArray(), reopened.Get("other"));
    }

    /// <summary>The directory as the power loss left it, for a failure's message: name and length of each file.</summary>
    private string DescribeFiles() => string.Join(", ", Directory.GetFiles(_dir.Path).Order(StringComparer.Ordinal)
        .Select(f => string.Create(CultureInfo.InvariantCulture, $"{Path.GetFileName(f)} {new FileInfo(f).Length} B")));

    private static string Describe(RecoveryReport report) => string.Create(CultureInfo.InvariantCulture,
        $"{report.Segments} segments, {report.HintFilesUsed} hints, {report.LeftoverFilesRemoved} leftovers removed, truncations [{string.Join("; ", report.TailTruncations)}]");

    [Fact]
    public void UnsyncedWritesAreLostInThePowerLossSimulation()
    {
        // The premise made certain, not left to timing: with the writers and compaction stopped,
        // one last acknowledged Put lands in the active segment, which nothing fsyncs under
        // Durability.None (only a rotation or compaction would), so the power loss must take it.
        // When only writers' timing decided, a loaded machine sometimes sealed every write first.
        var probe = new Op("probe", "written after the writers stopped");
        (List<Op>[] perThread, int[] acks) = RunUntilPowerLoss(Durability.None, 0, 100, lastWrite: probe);
        Assert.True(acks.Sum() > 0);
        using var store = TailDbStore.Open(_dir.Options());
        Assert.Null(store.Get(probe.Key));
        int lost = perThread.SelectMany((ops, t) => ops.Take(acks[t]))
            .GroupBy(op => op.Key)
            .Count(g => (store.Get(g.Key) is { } v ? Encoding.UTF8.GetString(v) : null) != g.Last().Value);
        output.WriteLine($"{acks.Sum()} acknowledged writes before the probe, {lost} of their keys lost their last value");
    }

    /// <param name="lastWrite">
    /// When given, the writers and compaction stop at <paramref name="powerOffAfterMs"/>, this one
    /// Put is acknowledged alone, and the power goes off right after it; otherwise the power goes
    /// off under the running writers.
    /// </param>
    private (List<Op>[] PerThread, int[] Acks) RunUntilPowerLoss(Durability durability, int cycle, int powerOffAfterMs, Op? lastWrite = null, bool asyncThroughAScheduler = false)
    {
        bool quiesce = false;
        var device = new PowerLossDevice();
        using var scheduler = asyncThroughAScheduler ? new OneThreadScheduler() : null;
        var store = TailDbStore.Open(_dir.Options() with
        {
            Device = device,
            Durability = durability,
            SegmentMaxBytes = 8 * 1024,
            CacheCapacityBytes = 4 * 1024,
            DurableWaitersScheduler = scheduler,
        });
        var perThread = Enumerable.Range(0, Writers).Select(_ => new List<Op>()).ToArray();
        var acks = new int[Writers];
        var threads = Enumerable.Range(0, Writers).Select(t => new Thread(() =>
        {
            var random = new Random((cycle * 100) + t);
            try
            {
                for (int n = 0; !Volatile.Read(ref quiesce); n++)
                {
                    string key = $"t{t}-k{random.Next(40)}";
                    if (random.Next(10) == 0)
                    {
                        perThread[t].Add(new Op(key, null));
                        if (asyncThroughAScheduler)
                        {
                            store.DeleteAsync(Encoding.UTF8.GetBytes(key)).AsTask().GetAwaiter().GetResult();
                        }
                        else
                        {
                            store.Delete(key);
                        }
                    }
                    else
                    {
                        string value = $"{key}|{cycle}|{n}|{new string('x', random.Next(100))}";
                        perThread[t].Add(new Op(key, value));
                        if (asyncThroughAScheduler)
                        {
                            store.PutAsync(Encoding.UTF8.GetBytes(key), Encoding.UTF8.GetBytes(value)).AsTask().GetAwaiter().GetResult();
                        }
                        else
                        {
                            store.Put(key, Encoding.UTF8.GetBytes(value));
                        }
                    }

                    acks[t]++;
                }
            }
            catch (TailDbFaultedException)
            {
                // The power went off under this write.
            }
        })).ToList();
        var compactor = new Thread(() =>
        {
            try
            {
                while (!Volatile.Read(ref quiesce))
                {
                    Thread.Sleep(15);
                    store.Compact();
                }
            }
            catch (Exception e) when (e is IOException or TailDbException)
            {
            }
        });

        threads.ForEach(t => t.Start());
        compactor.Start();
        Thread.Sleep(powerOffAfterMs);
        if (lastWrite is not null)
        {
            Volatile.Write(ref quiesce, true);
            threads.ForEach(t => t.Join());
            compactor.Join();
            store.Put(lastWrite.Key, Encoding.UTF8.GetBytes(lastWrite.Value!));
        }

        device.PowerOff();
        threads.ForEach(t => t.Join());
        compactor.Join();
        store.Dispose();
        device.Restore();
        return (perThread, acks);
    }
}
