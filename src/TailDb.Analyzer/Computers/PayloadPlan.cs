using System.Runtime.InteropServices;
using Microsoft.Diagnostics.Tracing;
using TailDb.Analyzer.Traces;

namespace TailDb.Analyzer.Computers;

/// <summary>
/// Which payload fields of one event template a request keeps, and where its arrival is: built once
/// from the template's <see cref="PayloadLayout"/> (field names and types from the metadata), then
/// each event's bytes are copied into a reused buffer and read where the layout locates them, strings
/// and fields after strings included, without boxing. Hash fields are identities, not magnitudes, but
/// are kept: the report shows them per request.
/// </summary>
internal sealed class PayloadPlan
{
    private readonly PayloadLayout _layout;
    private readonly Kept[] _kept;
    private readonly ActivityInfo? _activity;

    /// <summary>Index of the arrival field (a 64-bit Stopwatch timestamp), or -1.</summary>
    private readonly int _arrival;

    /// <summary>Index of the Stop's own end time (a 64-bit Stopwatch timestamp), or -1.</summary>
    private readonly int _stop;
    private readonly TraceClock? _clock;
    private readonly int[] _offsets;
    private readonly int[] _widths;
    private byte[] _buffer = new byte[256];

    private PayloadPlan(PayloadLayout layout, Kept[] kept, IReadOnlyList<string> skipped, ActivityInfo? activity = null, int arrival = -1, TraceClock? clock = null, int stop = -1)
    {
        _stop = stop;
        _layout = layout;
        _kept = kept;
        _activity = activity;
        _arrival = arrival;
        _clock = clock;
        _offsets = new int[layout.Fields.Count];
        _widths = new int[layout.Fields.Count];
        Skipped = skipped;
    }

    public static PayloadPlan Empty { get; } = new(new PayloadLayout([]), [], []);

    /// <summary>True when events of this template carry the request's arrival.</summary>
    public bool HasArrival => _arrival >= 0;

    public IReadOnlyList<string> Skipped { get; }

    /// <summary>Events whose numbers were written wider than their metadata declares (<see cref="PayloadFit.Widened"/>).</summary>
    public long Widened { get; private set; }

    /// <summary>Events whose payload ended before their declared fields did.</summary>
    public long Short { get; private set; }

    /// <summary>The template's declared fields, for notes: "(int requestId, long arrivalTimestamp)".</summary>
    public string Signature => _layout.Signature();

    /// <param name="arrivalField">The Start payload field holding the arrival as a Stopwatch timestamp.</param>
    /// <param name="clock">Converts that timestamp to trace time; without one the field is an ordinary number.</param>
    /// <param name="metadata">The declared fields of the provider's events; without it (or the event in it), the types of TraceEvent's values.</param>
    /// <param name="stopField">The Stop payload field holding the request's end as a Stopwatch timestamp.</param>
    public static PayloadPlan Build(TraceEvent data, ActivityInfo activity, string? arrivalField = null, TraceClock? clock = null, EventMetadata? metadata = null, string? stopField = null)
    {
        ArgumentNullException.ThrowIfNull(data);
        ArgumentNullException.ThrowIfNull(activity);
        PayloadLayout layout;
        try
        {
            layout = metadata is not null && metadata.TryGetFields((int)data.ID, data.Version, out var declared)
                ? new PayloadLayout(declared)
                : PayloadLayout.Of(data);
        }
        catch (Exception e) when (TracePass.IsParserFailure(e))
        {
            // A damaged template: keep the timing, drop the fields.
            return Empty;
        }

        var kept = new List<Kept>();
        var skipped = new List<string>();
        var arrival = -1;
        var stop = -1;
        for (var i = 0; i < layout.Fields.Count; i++)
        {
            var (name, type) = layout.Fields[i];
            if (type is PayloadFieldType.Int64 or PayloadFieldType.UInt64 && clock is not null && data.Opcode == TraceEventOpcode.Start
                && string.Equals(name, arrivalField, StringComparison.OrdinalIgnoreCase))
            {
                arrival = i;
                continue;
            }

            if (type is PayloadFieldType.Int64 or PayloadFieldType.UInt64 && clock is not null && data.Opcode == TraceEventOpcode.Stop
                && string.Equals(name, stopField, StringComparison.OrdinalIgnoreCase))
            {
                stop = i;
                continue;
            }

            var kind = type switch
            {
                PayloadFieldType.String => KeptKind.Text,
                PayloadFieldType.Bool => KeptKind.Bool,
                PayloadFieldType.SByte or PayloadFieldType.Byte or PayloadFieldType.Int16 or PayloadFieldType.UInt16 or PayloadFieldType.Char
                    or PayloadFieldType.Int32 or PayloadFieldType.UInt32 or PayloadFieldType.Int64 or PayloadFieldType.UInt64 => KeptKind.Integer,
                _ => KeptKind.None,
            };
            var slot = kind switch
            {
                KeptKind.Text => activity.TextField(name),
                KeptKind.None => -1,
                _ => activity.Field(name, kind == KeptKind.Bool),
            };
            if (slot >= 0)
            {
                kept.Add(new Kept(i, slot, kind));
            }
            else
            {
                skipped.Add(name);
            }
        }

        return new PayloadPlan(layout, [.. kept], skipped, activity, arrival, clock, stop);
    }

    public void Read(TraceEvent data, ref RequestRecord record)
    {
        if (_kept.Length == 0 && _arrival < 0 && _stop < 0)
        {
            return;
        }

        var length = data.EventDataLength;
        if (_buffer.Length < length)
        {
            _buffer = new byte[Math.Max(length, _buffer.Length * 2)];
        }

        Marshal.Copy(data.DataStart, _buffer, 0, length);
        var payload = _buffer.AsSpan(0, length);
        switch (_layout.Locate(payload, _offsets, _widths))
        {
            case PayloadFit.Widened:
                Widened++;
                break;
            case PayloadFit.Short:
                Short++;
                break;
        }

        if (_arrival >= 0 && _layout.TryReadInteger(payload, _arrival, _offsets[_arrival], _widths[_arrival], out var arrival))
        {
            // Queue = Start - arrival, both on the trace's clock.
            record.QueueMSec = record.StartMSec - _clock!.RelativeMSec(arrival);
            record.HasArrival = true;
        }

        if (_stop >= 0 && _layout.TryReadInteger(payload, _stop, _offsets[_stop], _widths[_stop], out var stop))
        {
            // The app's own read of the end: the Stop event is stamped after it, by one event's cost.
            // A value outside [Start, the Stop event] is not that read (unset, or another clock): ignored.
            var end = _clock!.RelativeMSec(stop);
            if (end >= record.StartMSec && end <= record.StopMSec)
            {
                record.StopMSec = end;
            }
        }

        foreach (var kept in _kept)
        {
            var (offset, width) = (_offsets[kept.Field], _widths[kept.Field]);
            if (kept.Kind == KeptKind.Text)
            {
                if (_layout.TryReadString(payload, kept.Field, offset, width, out var text))
                {
                    _activity!.StoreText(ref record, kept.Slot, text);
                }
            }
            else if (_layout.TryReadInteger(payload, kept.Field, offset, width, out var value))
            {
                _activity!.Store(ref record, kept.Slot, value);
            }
        }
    }

    private enum KeptKind
    {
        None,
        Integer,
        Bool,
        Text,
    }

    private readonly record struct Kept(int Field, int Slot, KeptKind Kind);
}
