using System.Buffers.Binary;
using System.Text;
using TailDb.Analyzer.Computers;
using TailDb.Analyzer.Sources;
using TailDb.Analyzer.Sources.NetTrace;
using TailDb.Analyzer.Stacks;
using TailDb.Tracing.Recording;
using TailDb.Tracing;

namespace TailDb.Analyzer.Watch;

/// <summary>
/// Reads the session's events as the ring receives them: pairs the chosen activity's Start/Stop
/// (by activity id, else by thread), keeps the last minute's percentiles, follows GC pauses, counts
/// events lost (sequence-number gaps), keeps every MethodLoadVerbose for captures, and fires
/// triggers. A fired trigger waits for event time to pass its end plus the margin, then hands the
/// ring's snapshot to <paramref name="capture"/>. Runs on the session's reader thread; the live view
/// reads <see cref="Stats"/> under the same lock.
/// </summary>
internal sealed class LiveTracker(WatchSettings settings, CaptureBudget budget, Action<Trigger, RingSnapshot, IReadOnlyList<KeptMethodLoad>> capture) : IRingObserver
{
    private const int MethodLoadVerboseId = 143;

    // Metadata ids are small and dense (the runtime numbers them from 1): a table, not a hash lookup per event.
    private const int DenseMetadataIds = 1 << 16;
    private const long NoCaptureThread = long.MinValue;

    private readonly object _gate = new();
    private Role[] _roles = new Role[256];
    private readonly Dictionary<int, Role> _sparseRoles = [];
    private readonly List<string> _activityNames = [];
    private readonly ActivityPairs<long> _open = new();
    private readonly Dictionary<long, int> _sequences = [];
    private readonly List<KeptMethodLoad> _methodLoads = [];
    private readonly RollingPercentiles _percentiles = new();
    private readonly Queue<long> _lastSecond = new();
    private long _syncQpc;
    private long _frequency = 1;
    private GcPausePairing<long> _gcPause;
    private long _sequenceThread = NoCaptureThread;
    private int _sequenceLast;
    private Trigger? _pending;
    private long _pendingDue;
    private long _pendingStart;
    private long _pendingSinceTicks;
    private long _cooldownUntil = long.MinValue;
    private long _methodLoadBytes;

    private enum RoleKind : byte { None, Start, Stop, GcSuspendBegin, GcRestartEnd, MethodLoad }

    private readonly record struct Role(RoleKind Kind, int Activity);

    public object Gate => _gate;

    public WatchStats Stats { get; } = new();

    public void OnPrologue(long syncTimeQpc, long qpcFrequency)
    {
        _syncQpc = syncTimeQpc;
        _frequency = qpcFrequency;
    }

    public bool Read(BlockKind kind, ReadOnlySpan<byte> payload, List<int> stackIds)
    {
        lock (_gate)
        {
            return kind switch
            {
                BlockKind.Metadata => ReadMetadata(payload),
                BlockKind.Event => ReadEvents(payload, stackIds),
                _ => true,
            };
        }
    }

    public void OnBlock(RingBlock block, NetTraceRing ring)
    {
        lock (_gate)
        {
            if (_pending is { } trigger && block.MaxTimestamp >= _pendingDue)
            {
                Fire(trigger, ring);
            }

            Stats.RingBytes = ring.HeldBytes;
            Stats.PeakRingBytes = Math.Max(Stats.PeakRingBytes, ring.HeldBytes);
            Stats.RingSpanMSec = ring.SpanMSec;
            Stats.MethodLoadBytes = _methodLoadBytes;
            Stats.NewestMSec = ToMSec(ring.NewestTimestamp);
            Stats.CorruptBlocks = ring.CorruptBlocks;
        }
    }

    /// <summary>The stream ended (target exit, Ctrl-C): a pending capture is written with what arrived.</summary>
    public void Finish(NetTraceRing ring)
    {
        lock (_gate)
        {
            if (_pending is { } trigger)
            {
                Fire(trigger, ring);
            }
        }
    }

    /// <summary>
    /// A pending capture whose margin has not arrived in event time after the margin plus a second
    /// of wall time: the runtime sends a block only when one fills or its flush timer runs, so an
    /// idle target can hold the margin back indefinitely. Write what there is.
    /// </summary>
    public void FlushStale(NetTraceRing ring)
    {
        lock (_gate)
        {
            if (_pending is { } trigger && Environment.TickCount64 - _pendingSinceTicks > settings.Margin.TotalMilliseconds + 1000)
            {
                Fire(trigger, ring);
            }
        }
    }

    /// <summary>Refreshes the rolling figures (once a second, from the view).</summary>
    public void Refresh()
    {
        lock (_gate)
        {
            var now = Stats.NewestMSec / 1000.0;
            _percentiles.Advance(now);
            Stats.P50Ms = _percentiles.At(50);
            Stats.P99Ms = _percentiles.At(99);
            Stats.P999Ms = _percentiles.At(99.9);
            Stats.RollingCount = _percentiles.Count;
            var cutoff = (long)((now - 1) * 1000);
            while (_lastSecond.Count > 0 && _lastSecond.Peek() < cutoff)
            {
                _lastSecond.Dequeue();
            }

            Stats.RequestsPerSecond = _lastSecond.Count;
        }
    }

    private long MarginTicks => (long)(settings.Margin.TotalSeconds * _frequency);

    private double ToMSec(long timestamp) => (timestamp - _syncQpc) * 1000.0 / _frequency;

    private bool ReadMetadata(ReadOnlySpan<byte> payload)
    {
        var reader = new EventBlockReader(payload);
        while (reader.MoveNext())
        {
            if (!MetadataRecord.TryRead(reader.Payload, out var record))
            {
                return false;
            }

            var role = Classify(record.Provider, record.EventId, record.Name);
            if (role.Kind == RoleKind.None)
            {
                continue;
            }

            if ((uint)record.MetadataId < DenseMetadataIds)
            {
                if (record.MetadataId >= _roles.Length)
                {
                    Array.Resize(ref _roles, Math.Min(DenseMetadataIds, Math.Max(record.MetadataId + 1, _roles.Length * 2)));
                }

                _roles[record.MetadataId] = role;
            }
            else
            {
                _sparseRoles[record.MetadataId] = role;
            }
        }

        return !reader.Corrupt;
    }

    private Role Classify(string provider, int eventId, string name)
    {
        if (provider == RecordingProviders.Runtime)
        {
            return eventId switch
            {
                MethodLoadVerboseId => new Role(RoleKind.MethodLoad, -1),
                GcPauses.SuspendEEBeginId => new Role(RoleKind.GcSuspendBegin, -1),
                GcPauses.RestartEEEndId => new Role(RoleKind.GcRestartEnd, -1),
                _ => default,
            };
        }

        if (!string.Equals(provider, settings.Selection.Provider, StringComparison.OrdinalIgnoreCase) || !settings.Selection.IsRequest(name))
        {
            return default;
        }

        var kind = name.EndsWith("Start", StringComparison.OrdinalIgnoreCase) ? RoleKind.Start
            : name.EndsWith("Stop", StringComparison.OrdinalIgnoreCase) ? RoleKind.Stop : RoleKind.None;
        var stem = RequestSelection.Stem(name);
        var activity = _activityNames.IndexOf(stem);
        if (activity < 0)
        {
            _activityNames.Add(stem);
            activity = _activityNames.Count - 1;
        }

        return new Role(kind, activity);
    }

    /// <summary>
    /// The hot path: every event of the session passes here once. Per event it decodes the header
    /// and looks its metadata id up in a table; only the watched activity's Start/Stop, GC
    /// suspensions and method loads go further. Sequence numbers are checked only where an event
    /// spells them (a new capture thread): between, they follow by one, so nothing can be lost there.
    /// </summary>
    private bool ReadEvents(ReadOnlySpan<byte> payload, List<int> stackIds)
    {
        var reader = new EventBlockReader(payload);
        var roles = _roles;
        var lastStack = 0;
        var checkSequence = true; // the block restarts the header's running fields
        long events = 0;
        while (reader.MoveNext())
        {
            events++;
            if (reader.StackIdExplicit && reader.StackId != 0 && reader.StackId != lastStack)
            {
                lastStack = reader.StackId;
                stackIds.Add(lastStack);
            }

            var metadataId = reader.MetadataId;
            if (metadataId == 0)
            {
                checkSequence |= reader.SequenceExplicit;
                continue;
            }

            if (checkSequence || reader.SequenceExplicit)
            {
                CountLost(reader.CaptureThreadId, reader.SequenceNumber);
                checkSequence = false;
            }
            else
            {
                _sequenceLast = reader.SequenceNumber;
            }

            var role = (uint)metadataId < (uint)roles.Length ? roles[metadataId] : SparseRole(metadataId);
            if (role.Kind != RoleKind.None)
            {
                OnEvent(role, ref reader);
            }
        }

        Stats.Events += events;
        return !reader.Corrupt;
    }

    private Role SparseRole(int metadataId) =>
        _sparseRoles.Count > 0 && _sparseRoles.TryGetValue(metadataId, out var role) ? role : default;

    private void OnEvent(Role role, ref EventBlockReader reader)
    {
        switch (role.Kind)
        {
            case RoleKind.Start:
                _open.Start(reader.PairingKey(role.Activity), reader.Timestamp, out _);
                break;
            case RoleKind.Stop:
                if (_open.TryStop(reader.PairingKey(role.Activity), out var start))
                {
                    Completed(role.Activity, start, reader.Timestamp);
                }

                break;
            case RoleKind.GcSuspendBegin:
                var reason = reader.Payload.Length >= 4 ? BinaryPrimitives.ReadUInt32LittleEndian(reader.Payload) : 0;
                _gcPause.Begin(reader.ThreadId, reason, reader.Timestamp);
                break;
            case RoleKind.GcRestartEnd:
                if (_gcPause.TryEnd(reader.ThreadId, out var suspended))
                {
                    GcPause(suspended, reader.Timestamp);
                }

                break;
            case RoleKind.MethodLoad:
                _methodLoads.Add(new KeptMethodLoad(reader.MetadataId, reader.ThreadId, reader.Timestamp, reader.Payload.ToArray()));
                _methodLoadBytes += reader.PayloadSize + 48;
                break;
            default:
                break;
        }
    }

    /// <summary>A gap in a capture thread's sequence numbers is events the runtime dropped (its buffer was full).</summary>
    private void CountLost(long captureThread, int sequence)
    {
        if (_sequenceThread != NoCaptureThread)
        {
            _sequences[_sequenceThread] = _sequenceLast;
        }

        if (_sequences.TryGetValue(captureThread, out var last) && sequence > last + 1)
        {
            Stats.EventsLost += sequence - last - 1;
        }

        _sequenceThread = captureThread;
        _sequenceLast = sequence;
    }

    private void Completed(int activity, long start, long stop)
    {
        var durationMs = (stop - start) * 1000.0 / _frequency;
        var stopMs = ToMSec(stop);
        Stats.Requests++;
        _lastSecond.Enqueue((long)stopMs);
        var p99 = Stats.P99Ms;
        var enoughForP99 = Stats.RollingCount >= settings.Triggers.MinRequestsForP99;
        _percentiles.Add(stopMs / 1000.0, durationMs);
        var name = _activityNames[activity];
        if (settings.Triggers.ThresholdMs is { } threshold && durationMs >= threshold)
        {
            Offer(new Trigger(TriggerKind.Threshold, name, start, stop, ToMSec(start), durationMs, $"{durationMs:0.###} ms >= --threshold-ms {threshold}"));
        }
        else if (settings.Triggers.OverP99 is { } factor && enoughForP99 && !double.IsNaN(p99) && durationMs > factor * p99)
        {
            Offer(new Trigger(TriggerKind.OverP99, name, start, stop, ToMSec(start), durationMs,
                $"{durationMs:0.###} ms > {factor} x rolling p99 {p99:0.###} ms"));
        }
    }

    private void GcPause(long start, long stop)
    {
        var durationMs = (stop - start) * 1000.0 / _frequency;
        Stats.GcPauses++;
        if (settings.Triggers.GcPauseMs is { } limit && durationMs >= limit)
        {
            Offer(new Trigger(TriggerKind.GcPause, "gc", start, stop, ToMSec(start), durationMs, $"GC pause {durationMs:0.###} ms >= --gc-pause-ms {limit}"));
        }
    }

    private void Offer(Trigger trigger)
    {
        Stats.Triggers++;
        if (_pending is { } pending)
        {
            // One capture covers both while the pending one's start stays well inside the window;
            // the slower request becomes the capture's trigger (its report lists it first).
            var due = trigger.StopTimestamp + MarginTicks;
            if (due - _pendingStart < settings.Ring.Window.TotalSeconds * _frequency / 2)
            {
                Stats.Merged++;
                _pendingDue = Math.Max(_pendingDue, due);
                _pendingStart = Math.Min(_pendingStart, trigger.StartTimestamp);
                if (trigger.DurationMSec > pending.DurationMSec)
                {
                    _pending = trigger;
                }
            }
            else
            {
                Stats.SkippedPending++;
            }

            return;
        }

        if (budget.Started >= settings.MaxCaptures)
        {
            Stats.SkippedMaxCaptures++;
            return;
        }

        if (trigger.StopTimestamp < _cooldownUntil)
        {
            Stats.SkippedCooldown++;
            return;
        }

        _pending = trigger;
        _pendingDue = trigger.StopTimestamp + MarginTicks;
        _pendingStart = trigger.StartTimestamp;
        _pendingSinceTicks = Environment.TickCount64;
    }

    private void Fire(Trigger trigger, NetTraceRing ring)
    {
        _pending = null;
        Stats.CapturesStarted++;
        budget.Take();
        _cooldownUntil = trigger.StopTimestamp + (long)(settings.Cooldown.TotalSeconds * _frequency);
        capture(trigger, ring.Snapshot(), [.. _methodLoads]);
    }
}

/// <summary>The live view's figures; written under <see cref="LiveTracker.Gate"/>.</summary>
internal sealed class WatchStats
{
    public long Events { get; set; }

    public long EventsLost { get; set; }

    public long Requests { get; set; }

    public long RequestsPerSecond { get; set; }

    public long RollingCount { get; set; }

    public double P50Ms { get; set; } = double.NaN;

    public double P99Ms { get; set; } = double.NaN;

    public double P999Ms { get; set; } = double.NaN;

    public long GcPauses { get; set; }

    /// <summary>Blocks whose events broke the format, dropped from the ring.</summary>
    public long CorruptBlocks { get; set; }

    public long RingBytes { get; set; }

    /// <summary>The most the ring ever held (checked after each block's eviction).</summary>
    public long PeakRingBytes { get; set; }

    public double RingSpanMSec { get; set; }

    public long MethodLoadBytes { get; set; }

    public double NewestMSec { get; set; }

    public long Triggers { get; set; }

    public long CapturesStarted { get; set; }

    /// <summary>Triggers folded into a pending capture (their windows overlap it).</summary>
    public long Merged { get; set; }

    public long SkippedPending { get; set; }

    public long SkippedMaxCaptures { get; set; }

    public long SkippedCooldown { get; set; }

    /// <summary>Where the triggers went; every trigger is exactly one of these, so this equals <see cref="Triggers"/>.</summary>
    public long AccountedTriggers => CapturesStarted + Merged + SkippedPending + SkippedCooldown + SkippedMaxCaptures;
}
