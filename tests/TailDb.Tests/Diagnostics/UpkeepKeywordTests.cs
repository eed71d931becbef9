using System.Buffers;
using System.Collections.Concurrent;
using System.Diagnostics.Tracing;
using System.Text;
using TailDb.Tests.Storage;
using C = TailDb.Tracing.TailDbEventContract;

namespace TailDb.Tests.Diagnostics;

/// <summary>
/// A recording of requests only (--trace-level requests) enables the store's provider with the
/// Upkeep keyword alone: the store's background work must still be recorded, and not one of its
/// per-request events.
/// </summary>
[Collection(ProcessWideListeners.Name)]
public sealed class UpkeepKeywordTests : IDisposable
{
    private readonly TestDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    [Fact]
    public void With_only_the_Upkeep_keyword_on_compaction_is_recorded_and_no_Get_Put_Delete_or_FileRead_is()
    {
        using var listener = new UpkeepOnly();
        var options = _dir.Options() with { SegmentMaxBytes = 8192, CacheCapacityBytes = 1 << 16 };
        using (var store = TailDbStore.Open(options))
        {
            for (int round = 0; round < 20; round++)
            {
                for (int k = 0; k < 30; k++)
                {
                    store.Put($"k{k}", Encoding.UTF8.GetBytes($"k{k}-round{round}-{new string('p', 50)}"));
                }
            }

            store.Delete("k0");
            for (int k = 1; k < 30; k++)
            {
                // Misses (a FileRead each, were storage events on) and then hits.
                store.TryGet(Encoding.UTF8.GetBytes($"k{k}"), new ArrayBufferWriter<byte>());
                store.TryGet(Encoding.UTF8.GetBytes($"k{k}"), new ArrayBufferWriter<byte>());
            }

            Assert.True(store.Compact().BytesReclaimed > 0);
        }

        var ids = listener.Events.Select(e => e.EventId).ToList();
        Assert.Contains(C.EventIds.CompactionStart, ids);
        Assert.Contains(C.EventIds.CompactionStop, ids);
        int[] perRequest =
        [
            C.EventIds.GetStart, C.EventIds.GetStop, C.EventIds.PutStart, C.EventIds.PutStop, C.EventIds.DeleteStart, C.EventIds.DeleteStop,
            C.EventIds.FileReadStart, C.EventIds.FileReadStop, C.EventIds.FsyncStart, C.EventIds.FsyncStop,
        ];
        Assert.DoesNotContain(ids, perRequest.Contains);
    }

    private sealed class UpkeepOnly : EventListener
    {
        // Field initialisers run before the base constructor, which already calls OnEventSourceCreated.
        private readonly ConcurrentQueue<EventWrittenEventArgs> _events = new();

        public IReadOnlyList<EventWrittenEventArgs> Events => [.. _events];

        protected override void OnEventSourceCreated(EventSource eventSource)
        {
            if (eventSource.Name == C.ProviderName)
            {
                EnableEvents(eventSource, EventLevel.Verbose, (EventKeywords)C.Keywords.Upkeep);
            }
        }

        protected override void OnEventWritten(EventWrittenEventArgs eventData)
        {
            if (eventData.EventSource.Name == C.ProviderName)
            {
                _events.Enqueue(eventData);
            }
        }
    }
}
