using System.Buffers;
using System.Collections.Concurrent;
using System.Diagnostics.Tracing;
using TailDb.Diagnostics;
using TailDb.Storage;
using TailDb.Tests.Storage;
using C = TailDb.Tracing.TailDbEventContract;

namespace TailDb.Tests.Diagnostics;

[Collection(ProcessWideListeners.Name)]
public sealed class RequestEventTests : IDisposable
{
    private readonly TestDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    private sealed record Recorded(string Name, int Id, Guid ActivityId, Guid RelatedActivityId, EventTask Task, EventOpcode Opcode, IReadOnlyDictionary<string, object?> Payload);

    /// <summary>Records TailDb events, by default with TPL's activity ids on too (TplEventSource keyword 0x80, TasksFlowActivityIds), as other tools record.</summary>
    private class Recorder : EventListener
    {
        // Field initialisers run before the base constructor, which already calls OnEventSourceCreated.
        private readonly ConcurrentQueue<Recorded> _events = new();

        public IReadOnlyList<Recorded> Events => [.. _events];

        /// <summary>Called from the base constructor: a constant, not a field.</summary>
        protected virtual bool WithTpl => true;

        protected override void OnEventSourceCreated(EventSource eventSource)
        {
            if (eventSource.Name == "System.Threading.Tasks.TplEventSource" && WithTpl)
            {
                EnableEvents(eventSource, EventLevel.Informational, (EventKeywords)0x80);
            }
            else if (eventSource.Name == C.ProviderName)
            {
                EnableEvents(eventSource, EventLevel.Verbose, EventKeywords.All);
            }
        }

        protected override void OnEventWritten(EventWrittenEventArgs e)
        {
            if (e.EventSource.Name != C.ProviderName)
            {
                return;
            }

            var payload = new Dictionary<string, object?>();
            for (int i = 0; i < (e.PayloadNames?.Count ?? 0); i++)
            {
                payload[e.PayloadNames![i]] = e.Payload![i];
            }

            _events.Enqueue(new Recorded(e.EventName!, e.EventId, e.ActivityId, e.RelatedActivityId, e.Task, e.Opcode, payload));
        }
    }

    /// <summary>Only TailDb's provider, no TPL keyword: the store's own activity ids must do.</summary>
    private sealed class TailDbOnlyRecorder : Recorder
    {
        protected override bool WithTpl => false;
    }

    /// <summary>Only TailDb's provider, with the given keywords.</summary>
    private sealed class KeywordRecorder(EventKeywords keywords) : Recorder
    {
        protected override bool WithTpl => false;

        protected override void OnEventSourceCreated(EventSource eventSource)
        {
            // The base constructor calls this before the primary constructor's parameter is stored:
            // sources that exist already are enabled from the constructor body below instead.
        }

        public KeywordRecorder Enable()
        {
            foreach (EventSource source in EventSource.GetSources())
            {
                if (source.Name == C.ProviderName)
                {
                    EnableEvents(source, EventLevel.Verbose, keywords);
                }
            }

            return this;
        }
    }

    private static Recorder NewRecorder(bool tpl) => tpl ? new Recorder() : new TailDbOnlyRecorder();

    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public async Task EveryGetStartIsMatchedByAGetStopWithTheSameNonEmptyActivityId(bool tpl)
    {
        var options = _dir.Options() with { CacheCapacityBytes = 1 << 20 };
        byte[][] keys = Enumerable.Range(0, 20).Select(i => System.Text.Encoding.UTF8.GetBytes($"event-key-{Guid.NewGuid():N}-{i}")).ToArray();
        using (var writer = TailDbStore.Open(options))
        {
            foreach (byte[] key in keys)
            {
                writer.Put(key, key);
            }
        }

        var hashes = keys.Select(k => (long)Crc32C.Compute(k)).ToHashSet();
        using var recorder = NewRecorder(tpl);
        using (var store = TailDbStore.Open(options))
        {
            // First read of each key misses (fresh store), the second hits; sync and async, concurrently.
            await Task.WhenAll(keys.Select((key, i) => Task.Run(async () =>
            {
                if (i % 2 == 0)
                {
                    store.TryGet(key, new ArrayBufferWriter<byte>());
                    store.TryGet(key, new ArrayBufferWriter<byte>());
                }
                else
                {
                    await store.GetAsync(key);
                    await store.GetAsync(key);
                }
            })));
        }

        IReadOnlyList<Recorded> events = recorder.Events;
        var starts = events.Where(e => e.Id == C.EventIds.GetStart && hashes.Contains((long)e.Payload[C.Fields.KeyHash]!)).ToList();
        Assert.Equal(keys.Length * 2, starts.Count);
        Assert.All(starts, s => Assert.NotEqual(Guid.Empty, s.ActivityId));
        Assert.Equal(starts.Count, starts.Select(s => s.ActivityId).Distinct().Count());

        var stops = events.Where(e => e.Id == C.EventIds.GetStop).ToLookup(e => e.ActivityId);
        foreach (Recorded start in starts)
        {
            Recorded stop = Assert.Single(stops[start.ActivityId]);
            Assert.Equal(C.Activities.Get + "Stop", stop.Name);
            Assert.Equal(EventOpcode.Start, start.Opcode);
            Assert.Equal(EventOpcode.Stop, stop.Opcode);
            Assert.Equal(start.Task, stop.Task); // paired by task at run time
            Assert.True((bool)stop.Payload[C.Fields.Found]!);
        }

        // Every miss read its record inside the Get: FileRead's RelatedActivityId is the Get's ActivityId.
        var fileReads = events.Where(e => e.Id == C.EventIds.FileReadStart).ToLookup(e => e.RelatedActivityId);
        var misses = starts.Where(s => !(bool)Assert.Single(stops[s.ActivityId]).Payload[C.Fields.Hit]!).ToList();
        Assert.Equal(keys.Length, misses.Count);
        foreach (Recorded miss in misses)
        {
            Recorded read = Assert.Single(fileReads[miss.ActivityId]);
            Assert.NotEqual(Guid.Empty, read.ActivityId);
            Assert.NotEqual(miss.ActivityId, read.ActivityId);
            Assert.Single(events, e => e.Id == C.EventIds.FileReadStop && e.ActivityId == read.ActivityId);
        }
    }

    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public void FsyncNestsInsideThePutThatLedTheGroupCommit(bool tpl)
    {
        using var recorder = NewRecorder(tpl);
        using (var store = TailDbStore.Open(_dir.Options() with { Durability = Durability.Fsync }))
        {
            store.Put("fsync-key", "v"u8);
        }

        IReadOnlyList<Recorded> events = recorder.Events;
        long hash = Crc32C.Compute("fsync-key"u8);
        Recorded put = Assert.Single(events, e => e.Id == C.EventIds.PutStart && (long)e.Payload[C.Fields.KeyHash]! == hash);
        Recorded fsync = Assert.Single(events, e => e.Id == C.EventIds.FsyncStart && e.RelatedActivityId == put.ActivityId);
        Assert.Equal(1, (int)fsync.Payload[C.Fields.BatchSize]!);
        Assert.Single(events, e => e.Id == C.EventIds.PutStop && e.ActivityId == put.ActivityId);
    }

    [Fact]
    public async Task EveryWrittenPutOfABatchStopsOnceAndARefusedOneNeitherStartsNorStopsBatchAfterBatch()
    {
        using var recorder = NewRecorder(tpl: false);
        using (var store = TailDbStore.Open(_dir.Options() with { MaxValueBytes = 8 }))
        {
            // The batch's activity ids live in a pooled array: a later batch's refused put must not
            // inherit an id an earlier batch left in it.
            var statuses = new PutStatus[3];
            await store.PutBatchAsync([new("b1-a"u8.ToArray(), "1"u8.ToArray()), new("b1-b"u8.ToArray(), "2"u8.ToArray()), new("b1-c"u8.ToArray(), "3"u8.ToArray())], statuses);
            await store.PutBatchAsync([new("b2-a"u8.ToArray(), "1"u8.ToArray()), new("b2-big"u8.ToArray(), "123456789"u8.ToArray()), new("b2-c"u8.ToArray(), "3"u8.ToArray())], statuses);
            Assert.Equal([PutStatus.Written, PutStatus.Invalid, PutStatus.Written], statuses);
        }

        IReadOnlyList<Recorded> events = recorder.Events;
        Recorded[] starts = [.. events.Where(e => e.Id == C.EventIds.PutStart)];
        Recorded[] stops = [.. events.Where(e => e.Id == C.EventIds.PutStop)];
        Assert.Equal(5, starts.Length);
        Assert.DoesNotContain(starts, e => (long)e.Payload[C.Fields.KeyHash]! == KeyHash.Of("b2-big"u8));
        Assert.Equal(starts.Select(e => e.ActivityId).Order(), stops.Select(e => e.ActivityId).Order());
    }

    [Fact]
    public void ACacheHitIsRecordedByEveryRequestSessionAndByNoSessionThatLeftRequestsOff()
    {
        var options = _dir.Options() with { CacheCapacityBytes = 1 << 16 };
        using var store = TailDbStore.Open(options);
        store.Put("k", [1, 2, 3]);
        var into = new ArrayBufferWriter<byte>();
        store.TryGet("k"u8, into); // the miss that caches it
        int Hits(Recorder recorder) => recorder.Events.Count(e => e.Id == C.EventIds.GetStart);

        using (var first = new TailDbOnlyRecorder())
        {
            Assert.True(TailDbEventSource.RequestsMaybeOn);
            Assert.Equal(ReadStatus.Hit, store.TryGet("k"u8, into));
            Assert.Equal(1, Hits(first));
        }

        using (var storageOnly = new KeywordRecorder((EventKeywords)C.Keywords.Storage).Enable())
        {
            // The command that turned the first session off could not clear the flag (EventSource
            // turns the source down after it); this one, finding requests off, does.
            Assert.False(TailDbEventSource.RequestsMaybeOn);
            Assert.Equal(ReadStatus.Hit, store.TryGet("k"u8, into));
            Assert.Equal(0, Hits(storageOnly));
        }

        using var second = new TailDbOnlyRecorder();
        Assert.Equal(ReadStatus.Hit, store.TryGet("k"u8, into));
        Assert.Equal(1, Hits(second));
    }

    [Fact]
    public void EvictionAndDamageAreReportedAsEvents()
    {
        using var recorder = new Recorder();
        var options = _dir.Options() with { CacheCapacityBytes = 4096 };
        using (var store = TailDbStore.Open(options))
        {
            for (int i = 0; i < 50; i++)
            {
                store.Put($"evict-{i}", new byte[200]);
            }
        }

        File.AppendAllText(_dir.SegmentFiles().Last(), "torn");
        using (TailDbStore.Open(options))
        {
        }

        IReadOnlyList<Recorded> events = recorder.Events;
        Recorded eviction = events.First(e => e.Id == C.EventIds.CacheEvictionStop);
        Assert.True((int)eviction.Payload[C.Fields.Evicted]! > 0);
        Assert.True((long)eviction.Payload[C.Fields.BytesFreed]! > 0);
        Assert.Contains(events, e => e.Id == C.EventIds.TailTruncated && (long)e.Payload[C.Fields.BytesDropped]! == 4);
    }

    [Fact]
    public void AReadErrorEmitsReadFailedNamingTheSegmentOffsetAndError()
    {
        var device = new FailingDevice();
        using var store = TailDbStore.Open(_dir.Options() with { Device = device, CacheCapacityBytes = 0 });
        store.Put("read-failed", "v"u8);
        FaultTests.FailReadsOf(store, device, "read-failed");
        using var recorder = NewRecorder(tpl: false);
        Assert.Equal(ReadStatus.IoError, store.TryGet("read-failed", out _));

        // Other tests' stores run beside this one: pick ours by its directory in the error text.
        Recorded failed = Assert.Single(recorder.Events, e => e.Id == C.EventIds.ReadFailed && ((string)e.Payload[C.Fields.Reason]!).Contains(_dir.Path, StringComparison.Ordinal));
        Assert.Equal(C.Events.ReadFailed, failed.Name);
        Assert.Equal(device.FailReadsAt, (long)failed.Payload[C.Fields.Offset]!);
        Assert.Contains("Input/output error", (string)failed.Payload[C.Fields.Reason]!, StringComparison.Ordinal);
    }

    [Fact]
    public async Task AStoreOpenedNotToWriteEventsWritesNoRequestOrFileReadEventsWhileASessionHasThemOnAndAnotherStoreDoes()
    {
        using var quietDir = new TestDirectory();
        using var quiet = TailDbStore.Open(quietDir.Options() with { WritesEvents = false, CacheCapacityBytes = 0 });
        using var loud = TailDbStore.Open(_dir.Options() with { CacheCapacityBytes = 0 });
        using var recorder = NewRecorder(tpl: false);

        foreach ((TailDbStore store, string key) in new[] { (quiet, "quiet-key"), (loud, "loud-key") })
        {
            store.Put(key, "v"u8);
            byte[] batched = System.Text.Encoding.UTF8.GetBytes(key + "-batched");
            var statuses = new PutStatus[1];
            await store.PutBatchAsync([new BatchPut(batched, "v"u8.ToArray())], statuses);
            Assert.Equal(ReadStatus.Miss, store.TryGet(key, out _)); // no cache: a file read
            Assert.True(store.Delete(key));
        }

        IReadOnlyList<Recorded> events = recorder.Events;
        long[] quietHashes = [KeyHash.Of("quiet-key"u8), KeyHash.Of("quiet-key-batched"u8)];
        Assert.DoesNotContain(events, e => e.Payload.TryGetValue(C.Fields.KeyHash, out object? hash) && quietHashes.Contains((long)hash!));
        Assert.Contains(events, e => e.Id == C.EventIds.PutStart && (long)e.Payload[C.Fields.KeyHash]! == KeyHash.Of("loud-key"u8));
        Assert.Contains(events, e => e.Id == C.EventIds.PutStart && (long)e.Payload[C.Fields.KeyHash]! == KeyHash.Of("loud-key-batched"u8));
        Assert.Contains(events, e => e.Id == C.EventIds.GetStart && (long)e.Payload[C.Fields.KeyHash]! == KeyHash.Of("loud-key"u8));
        Assert.Contains(events, e => e.Id == C.EventIds.DeleteStart && (long)e.Payload[C.Fields.KeyHash]! == KeyHash.Of("loud-key"u8));
        // This collection runs alone: the loud store's one miss is the only file read.
        Assert.Single(events, e => e.Id == C.EventIds.FileReadStart);
    }
}
