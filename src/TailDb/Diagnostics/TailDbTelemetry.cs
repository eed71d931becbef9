using System.Diagnostics;
using System.Diagnostics.Metrics;
using System.Runtime.CompilerServices;

namespace TailDb.Diagnostics;

/// <summary>
/// System.Diagnostics telemetry for one store: an ActivitySource("TailDb") whose spans exist only
/// while someone listens, and a Meter("TailDb"). Everything is checked before it is computed, so a
/// store nobody observes pays a few field reads per request.
/// </summary>
internal sealed class TailDbTelemetry : IDisposable
{
    public const string Name = "TailDb";
    public const string DurationInstrument = "taildb.operation.duration";
    public const string OperationTag = "db.operation.name";

    /// <summary>
    /// 1 µs .. 10 s, each boundary at most 1.2x the previous: with linear interpolation inside a
    /// bucket that keeps a reported p99 within a few percent (docs/architecture.md, "Percentile figures": g=1.2 gives 51.20 for an
    /// exact 49.40), where the default OpenTelemetry boundaries (0, 5, 10, 25 ... ms) say nothing below 5 ms.
    /// </summary>
    public static IReadOnlyList<double> DurationBoundariesSeconds { get; } = BuildBoundaries(1e-6, 10, 1.2);

    private readonly Meter _meter;
    private readonly Histogram<double> _duration;
    private readonly Counter<long> _hits;
    private readonly Counter<long> _misses;
    private readonly Counter<long> _evictions;
    private readonly Counter<long> _bytesRead;
    private readonly Counter<long> _bytesWritten;

    /// <param name="writesEvents"><see cref="TailDbOptions.WritesEvents"/>: false keeps this store's request events off whatever a session asks.</param>
    public TailDbTelemetry(bool writesEvents = true)
    {
        WritesEvents = writesEvents;
        Activities = new ActivitySource(Name);
        _meter = new Meter(Name);
        _duration = _meter.CreateHistogram<double>(
            DurationInstrument,
            unit: "s",
            description: "Duration of TailDb Get, Put and Delete calls.",
            tags: null,
            advice: new InstrumentAdvice<double> { HistogramBucketBoundaries = DurationBoundariesSeconds });
        _hits = _meter.CreateCounter<long>("taildb.cache.hits", "{request}", "Gets answered from the cache.");
        _misses = _meter.CreateCounter<long>("taildb.cache.misses", "{request}", "Gets that read a segment file (found or not).");
        _evictions = _meter.CreateCounter<long>("taildb.cache.evictions", "{entry}", "Values evicted from the cache.");
        _bytesRead = _meter.CreateCounter<long>("taildb.io.read", "By", "Bytes read from segment files by Gets.");
        _bytesWritten = _meter.CreateCounter<long>("taildb.io.written", "By", "Bytes appended to segment files.");
    }

    public ActivitySource Activities { get; }

    /// <summary><see cref="TailDbOptions.WritesEvents"/>; read only after the EventSource said yes (<see cref="RequestEvents"/>, <see cref="StorageEvents"/>).</summary>
    public bool WritesEvents { get; }

    /// <summary>Whether this store writes its Get/Put/Delete Start/Stop now: a session asked, and the store is not silenced.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool RequestEvents() => TailDbEventSource.Log.RequestsEnabled() && WritesEvents;

    /// <summary>Whether this store writes its FileRead Start/Stop now (as <see cref="RequestEvents"/>, for the storage keyword).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool StorageEvents() => TailDbEventSource.Log.StorageEnabled() && WritesEvents;

    public Meter Meter => _meter;

    /// <summary>
    /// Whether anything would record a cache hit: the EventSource's request events, an
    /// ActivityListener, the duration histogram or the hits counter. A few field reads; false lets a
    /// hit skip all of it. A session with only the store's upkeep on (a trace of requests only)
    /// records nothing on a hit, so it keeps the fast path. A field of this object is read first,
    /// so the load itself is the null check the JIT would otherwise emit as an extra compare (the
    /// EventSource check reads a static); 2-3 instructions fewer per hit, single-stepped. The
    /// EventSource is asked only when a command may have turned its requests on
    /// (<see cref="TailDbEventSource.RequestsMaybeOn"/>: one static read instead of three fields).
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool Observed() =>
        Activities.HasListeners() || _duration.Enabled || _hits.Enabled
        || (TailDbEventSource.RequestsMaybeOn && RequestEvents());

    public long StartTimestamp() => _duration.Enabled ? Stopwatch.GetTimestamp() : 0;

    public Activity? StartActivity(string name) =>
        Activities.HasListeners() ? Activities.StartActivity(name, ActivityKind.Internal) : null;

    public void RecordDuration(long startTimestamp, string operation)
    {
        if (startTimestamp != 0)
        {
            _duration.Record(Stopwatch.GetElapsedTime(startTimestamp).TotalSeconds, new KeyValuePair<string, object?>(OperationTag, operation));
        }
    }

    public void Hit()
    {
        if (_hits.Enabled)
        {
            _hits.Add(1);
        }
    }

    public void Miss()
    {
        if (_misses.Enabled)
        {
            _misses.Add(1);
        }
    }

    public void Evicted(int count)
    {
        if (count > 0 && _evictions.Enabled)
        {
            _evictions.Add(count);
        }
    }

    public void Read(int bytes)
    {
        if (_bytesRead.Enabled)
        {
            _bytesRead.Add(bytes);
        }
    }

    public void Written(int bytes)
    {
        if (_bytesWritten.Enabled)
        {
            _bytesWritten.Add(bytes);
        }
    }

    private static double[] BuildBoundaries(double first, double last, double growth)
    {
        var list = new List<double>();
        for (double b = first; b < last; b *= growth)
        {
            list.Add(b);
        }

        list.Add(last);
        return [.. list];
    }

    public void Dispose()
    {
        Activities.Dispose();
        _meter.Dispose();
    }
}
