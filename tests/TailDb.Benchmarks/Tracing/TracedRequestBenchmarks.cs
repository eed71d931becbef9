using System.Buffers;
using System.Diagnostics.Tracing;
using BenchmarkDotNet.Attributes;
using Microsoft.Diagnostics.NETCore.Client;
using TailDb.Benchmarks.Configuration;
using TailDb.Benchmarks.Fixtures;
using TailDb.Tracing.Recording;

namespace TailDb.Benchmarks.Tracing;

/// <summary>
/// What a request allocates and costs while a TailDb-only session is on in this process: none, an
/// EventListener for TailDb that enables no TPL keyword, or a real EventPipe session started through
/// DiagnosticsClient on this process (TailDb provider only, no stacks, no rundown; its stream is
/// read to nowhere by a thread of its own). Goal: 0 B per Get hit, Get miss and Put in TailDb's code.
/// An EventListener delivers each event as an EventWrittenEventArgs it allocates (the BCL's cost,
/// not the store's); the EventPipe session's bytes, if any, are its reader thread's.
/// </summary>
[BenchmarkCategory(Categories.Traced)]
public class TracedRequestBenchmarks
{
    public enum SessionKind
    {
        None,
        TailDbListener,
        EventPipe,
    }

    private readonly ArrayBufferWriter<byte> _destination = new(SuiteScale.ValueBytes * 2);
    private KeySet _keys = null!;
    private ScratchDirectory _hitDirectory = null!;
    private ScratchDirectory _missDirectory = null!;
    private TailDbStore _hits = null!;
    private TailDbStore _misses = null!;
    private EventListener? _listener;
    private EventPipeSession? _session;
    private Thread? _drain;
    private int _next;

    [Params(SessionKind.None, SessionKind.TailDbListener, SessionKind.EventPipe)]
    public SessionKind Session { get; set; }

    [GlobalSetup]
    public void Setup()
    {
        _keys = new KeySet(SuiteScale.Current.HitKeys, SuiteScale.KeyBytes, SuiteScale.ValueBytes);
        _hitDirectory = new ScratchDirectory("traced-hit");
        _missDirectory = new ScratchDirectory("traced-miss");
        _hits = TailDbStore.Open(new TailDbOptions { Directory = _hitDirectory.Path, ExpectedKeyCount = _keys.Count * 2 });
        _misses = TailDbStore.Open(new TailDbOptions { Directory = _missDirectory.Path, ExpectedKeyCount = _keys.Count * 2, CacheCapacityBytes = 0 });
        for (var i = 0; i < _keys.Count; i++)
        {
            _hits.Put(_keys.Keys[i], _keys.Values[i]);
            _misses.Put(_keys.Keys[i], _keys.Values[i]);
        }

        if (Session == SessionKind.TailDbListener)
        {
            _listener = new TailDbOnlyListener();
        }
        else if (Session == SessionKind.EventPipe)
        {
            var client = new DiagnosticsClient(Environment.ProcessId);
            _session = client.StartEventPipeSession(
                new EventPipeSessionConfiguration([new EventPipeProvider(RecordingProviders.TailDb, EventLevel.Verbose, -1)], 64, requestRundown: false, requestStackwalk: false));
            // Blocking reads into one buffer: an async copy allocates per read, and how many reads an
            // iteration takes follows the machine's timing (a CI run on a slower VM: Put +95 B/op).
            Stream events = _session.EventStream;
            _drain = new Thread(() => Drain(events)) { IsBackground = true, Name = "eventpipe-drain" };
            _drain.Start();
        }
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        _listener?.Dispose();
        if (_session is not null)
        {
            _session.Stop();
            _drain?.Join(TimeSpan.FromSeconds(30));
            _session.Dispose();
        }

        _hits.Dispose();
        _misses.Dispose();
        _hitDirectory.Dispose();
        _missDirectory.Dispose();
    }

    private static void Drain(Stream events)
    {
        var buffer = new byte[64 << 10];
        try
        {
            while (events.Read(buffer) > 0)
            {
            }
        }
        catch (Exception e) when (e is IOException or ObjectDisposedException)
        {
            // The session was stopped and its stream closed.
        }
    }

    private byte[] NextKey() => _keys.Keys[_keys.Order[_next++ & (_keys.Count - 1)]];

    [Benchmark(Baseline = true)]
    public ReadStatus GetHit()
    {
        _destination.ResetWrittenCount();
        return _hits.TryGet(NextKey(), _destination);
    }

    [Benchmark]
    [DriftsWith(typeof(Gets.GetMissBenchmarks), nameof(Gets.GetMissBenchmarks.RawRandomAccessRead))] // a miss reads its record; the category's baseline, a hit, reads nothing
    public ReadStatus GetMiss()
    {
        _destination.ResetWrittenCount();
        return _misses.TryGet(NextKey(), _destination);
    }

    [Benchmark]
    [DriftsWith(typeof(Puts.PutBenchmarks), nameof(Puts.PutBenchmarks.RawAppend))]
    public void Put()
    {
        int i = _keys.Order[_next++ & (_keys.Count - 1)];
        _hits.Put(_keys.Keys[i], _keys.Values[i]);
    }

    /// <summary>TailDb's provider at Verbose with every keyword, and nothing else (no TPL).</summary>
    private sealed class TailDbOnlyListener : EventListener
    {
        protected override void OnEventSourceCreated(EventSource eventSource)
        {
            if (eventSource.Name == RecordingProviders.TailDb)
            {
                EnableEvents(eventSource, EventLevel.Verbose, EventKeywords.All);
            }
        }

        protected override void OnEventWritten(EventWrittenEventArgs eventData)
        {
        }
    }
}
