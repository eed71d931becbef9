using System.Runtime.CompilerServices;

namespace TailDb.Analyzer.Computers;

/// <summary>A request's integer payload fields, inline (no per-request array); 32 bits each.</summary>
[InlineArray(Count)]
internal struct PayloadValues
{
    public const int Count = 3;
    private int _first;
}

/// <summary>
/// One request activity in 40 bytes: a 1 GB trace holds over 10 million requests, and all of them
/// are kept (the slow set is only known at the end). When its Start carries an arrival
/// (LoadTestEventContract.Fields.ArrivalTimestamp, or --arrival-field) the request also has a
/// queue part, arrival to Start, before its service part, Start to Stop. Duration as a float keeps 7 significant
/// digits; up to three integer payload fields of 32 bits (wider values mark their field unusable
/// rather than be truncated silently; further fields are named in the report's notes); bool fields are bits.
/// </summary>
internal struct RequestRecord
{
    public double StartMSec;
    public int ThreadId;
    public PayloadValues Ints;
    public byte Activity;
    public bool PairedByThread;

    /// <summary>Bit i set when field i of the activity was present in this request's events.</summary>
    public byte FieldMask;
    public byte Bools;
    private float _durationMSec;
    private float _queueMSec;

    /// <summary>NaN while (or if never) stopped.</summary>
    public double StopMSec
    {
        readonly get => StartMSec + _durationMSec;
        set => _durationMSec = (float)(value - StartMSec);
    }

    /// <summary>Service time: Start to Stop.</summary>
    public readonly double DurationMSec => _durationMSec;

    /// <summary>Arrival to Start; 0 when the request carries no arrival (or arrived after it started).</summary>
    public double QueueMSec
    {
        readonly get => _queueMSec;
        set => _queueMSec = (float)Math.Max(0, value);
    }

    /// <summary>Set when the Start carried an arrival field.</summary>
    public bool HasArrival;

    /// <summary>Stopped on another thread than it started on (a networked client's request, answered on a reader thread).</summary>
    public bool CrossThread;

    public readonly double ArrivalMSec => StartMSec - _queueMSec;

    /// <summary>Response time: arrival (or Start) to Stop, what a client waiting for the request sees.</summary>
    public readonly double ResponseMSec => _queueMSec + _durationMSec;

    public readonly bool IsPaired => !float.IsNaN(_durationMSec);
}

/// <summary>An activity nested in a request (TailDb's FileRead and Fsync): file I/O as the store saw it.</summary>
/// <param name="Parent">Index of the request it ran inside, or -1.</param>
internal struct NestedRecord(double startMSec, int threadId, int parent, byte activity)
{
    private float _durationMSec = float.NaN;

    public double StartMSec { get; } = startMSec;

    public int ThreadId { get; } = threadId;

    public int Parent { get; } = parent;

    public byte Activity { get; } = activity;

    /// <summary>Stopped on the thread it started on: while it ran, it held that thread (a client's PoolWait; not its Attempt, answered on a reader thread).</summary>
    public bool SameThread { get; set; }

    public double StopMSec
    {
        readonly get => StartMSec + _durationMSec;
        set => _durationMSec = (float)(value - StartMSec);
    }

    public readonly bool IsPaired => !float.IsNaN(_durationMSec);
}

internal enum PairingMode
{
    None,
    ActivityId,
    Thread,
    Mixed,
}

/// <summary>An activity name seen in the provider and the payload fields kept for it.</summary>
internal sealed class ActivityInfo(string name, bool isRequest)
{
    public string Name { get; } = name;

    public bool IsRequest { get; } = isRequest;

    public List<string> FieldNames { get; } = [];

    public long UnpairedStarts { get; set; }

    public long UnpairedStops { get; set; }

    public long Completed { get; set; }

    public long WithParent { get; set; }

    private readonly List<FieldLayout> _layouts = [];
    private int _ints;
    private int _bools;

    /// <summary>
    /// A string field (ASP.NET Core's method and path): the record keeps an id into this activity's
    /// table of the field's distinct values. Past <see cref="TextValues.MaxDistinct"/> distinct values
    /// a value is kept as its template (digit runs as {n}), so memory stays bounded on any trace.
    /// Returns the field's index, or -1 when the record has no room left.
    /// </summary>
    public int TextField(string fieldName)
    {
        var field = Field(fieldName, isBool: false);
        if (field >= 0)
        {
            _layouts[field].Text ??= new TextValues();
        }

        return field;
    }

    public bool IsText(int field) => _layouts[field].Text is not null;

    /// <summary>Stores a string field's value as its id in the field's table.</summary>
    public void StoreText(ref RequestRecord record, int field, ReadOnlySpan<char> value) => Store(ref record, field, _layouts[field].Text!.Intern(value));

    /// <summary>The string a text field's stored id stands for.</summary>
    public string TextOf(int field, long id) => _layouts[field].Text!.Value((int)id);

    /// <summary>The id of the template (digit runs as {n}) of a text field's stored value.</summary>
    public int TemplateOf(int field, long id) => _layouts[field].Text!.Template((int)id);

    /// <summary>The field's index (its FieldMask bit), or -1 when the record has no room left.</summary>
    public int Field(string fieldName, bool isBool)
    {
        var field = FieldNames.IndexOf(fieldName);
        if (field >= 0)
        {
            return field;
        }

        if (FieldNames.Count >= 8 || (isBool ? _bools >= 8 : _ints >= PayloadValues.Count))
        {
            return -1;
        }

        FieldNames.Add(fieldName);
        _layouts.Add(new FieldLayout(isBool, isBool ? _bools++ : _ints++));
        return FieldNames.Count - 1;
    }

    public void Store(ref RequestRecord record, int field, long value)
    {
        var layout = _layouts[field];
        if (layout.IsBool)
        {
            if (value != 0)
            {
                record.Bools |= (byte)(1 << layout.Slot);
            }
        }
        else
        {
            if (value is < int.MinValue or > uint.MaxValue || (value > int.MaxValue && layout.Signed) || (value < 0 && layout.Unsigned))
            {
                layout.Overflowed = true;
            }
            else if (value > int.MaxValue)
            {
                layout.Unsigned = true;
            }
            else if (value < 0)
            {
                layout.Signed = true;
            }

            record.Ints[layout.Slot] = unchecked((int)value);
        }

        record.FieldMask |= (byte)(1 << field);
    }

    /// <summary>False when the request lacks the field or the field's values did not fit 32 bits.</summary>
    public bool TryGet(in RequestRecord record, int field, out long value)
    {
        var layout = _layouts[field];
        value = 0;
        if ((record.FieldMask & (1 << field)) == 0 || layout.Overflowed)
        {
            return false;
        }

        value = layout.IsBool ? (record.Bools >> layout.Slot) & 1
            : layout.Unsigned ? (uint)record.Ints[layout.Slot] : record.Ints[layout.Slot];
        return true;
    }

    public bool Overflowed(int field) => _layouts[field].Overflowed;

    private sealed class FieldLayout(bool isBool, int slot)
    {
        public bool IsBool { get; } = isBool;

        public int Slot { get; } = slot;

        public bool Signed { get; set; }

        public bool Unsigned { get; set; }

        public bool Overflowed { get; set; }

        public TextValues? Text { get; set; }
    }
}

/// <summary>One string field's distinct values, interned; and each value's template.</summary>
internal sealed class TextValues
{
    /// <summary>Distinct values kept as they are; later new values are kept as their templates.</summary>
    public const int MaxDistinct = 65_536;

    private readonly Dictionary<string, int> _ids;
    private readonly Dictionary<string, int>.AlternateLookup<ReadOnlySpan<char>> _byChars;
    private readonly List<string> _values = [];
    private readonly List<int> _templates = [];

    public TextValues()
    {
        _ids = new(StringComparer.Ordinal);
        _byChars = _ids.GetAlternateLookup<ReadOnlySpan<char>>();
    }

    /// <summary>A value seen before costs a lookup, no string.</summary>
    public int Intern(ReadOnlySpan<char> chars)
    {
        if (_byChars.TryGetValue(chars, out var id))
        {
            return id;
        }

        var value = chars.ToString();

        var template = TemplateText(value);
        if (_values.Count >= MaxDistinct && _ids.TryGetValue(template, out var templateId))
        {
            return templateId;
        }

        // Values without digits (GUIDs in hex, free text) have no template to fold into: one bucket.
        if (_values.Count >= 2 * MaxDistinct)
        {
            return _ids.TryGetValue(Other, out var other) ? other : Add(Other);
        }

        return Add(_values.Count >= MaxDistinct ? template : value);
    }

    /// <summary>Where values go once even the templates are too many to keep apart.</summary>
    public const string Other = "(other values)";

    public string Value(int id) => (uint)id < (uint)_values.Count ? _values[id] : "";

    public int Template(int id) => (uint)id < (uint)_templates.Count ? _templates[id] : id;

    /// <summary>"/item/97" → "/item/{n}": what a route template would group.</summary>
    public static string TemplateText(string value) => System.Text.RegularExpressions.Regex.Replace(value, "[0-9]+", "{n}");

    private int Add(string value)
    {
        var id = _values.Count;
        _values.Add(value);
        _ids.Add(value, id);
        var template = TemplateText(value);
        if (template == value)
        {
            _templates.Add(id);
        }
        else
        {
            _templates.Add(-1);
            _templates[id] = Intern(template);
        }

        return id;
    }
}
