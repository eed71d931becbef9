using System.Runtime.CompilerServices;

namespace TailDb.Analyzer.Computers;

/// <summary>Up to <see cref="Count"/> numeric payload fields of a request, inline (no per-request array).</summary>
[InlineArray(Count)]
internal struct PayloadValues
{
    public const int Count = 6;
    private long _first;
}

/// <summary>One request activity: 72 bytes, so millions fit the memory budget.</summary>
internal struct RequestRecord
{
    public double StartMSec;

    /// <summary>NaN while (or if never) stopped.</summary>
    public double StopMSec;
    public int ThreadId;
    public byte Activity;
    public bool PairedByThread;

    /// <summary>Bit i set when field i was present in this request's events.</summary>
    public byte FieldMask;
    public PayloadValues Fields;

    public readonly bool IsPaired => !double.IsNaN(StopMSec);

    public readonly double DurationMSec => StopMSec - StartMSec;
}

/// <summary>An activity nested in a request (TailDb's FileRead and Fsync): file I/O as the store saw it.</summary>
/// <param name="Parent">Index of the request it ran inside, or -1.</param>
internal record struct NestedRecord(double StartMSec, double StopMSec, int ThreadId, int Parent, byte Activity);

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

    public int FieldSlot(string fieldName)
    {
        var slot = FieldNames.IndexOf(fieldName);
        if (slot < 0 && FieldNames.Count < PayloadValues.Count)
        {
            FieldNames.Add(fieldName);
            slot = FieldNames.Count - 1;
        }

        return slot;
    }
}
