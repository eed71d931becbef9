using TailDb.Analyzer.Sources.NetTrace;

namespace TailDb.Analyzer.Watch;

/// <summary>
/// One whole block of the session's stream, as the runtime wrote it: its FastSerialization type
/// header (shared by every block of a kind) and its payload. Timestamps are the runtime's clock
/// (QPC ticks); <see cref="Epoch"/> counts the sequence points before it (stack ids restart at each).
/// </summary>
internal sealed class RingBlock(BlockKind kind, byte[] typeHeader, byte[] payload, long maxTimestamp, int epoch)
{
    public BlockKind Kind { get; } = kind;

    /// <summary>From the object's BeginPrivateObject tag through its type's EndObject tag.</summary>
    public byte[] TypeHeader { get; } = typeHeader;

    public byte[] Payload { get; } = payload;

    /// <summary>The latest event time in the block (for stack and sequence-point blocks: the latest seen before them).</summary>
    public long MaxTimestamp { get; } = maxTimestamp;

    public int Epoch { get; } = epoch;

    /// <summary>For an EventBlock: the distinct stack ids its events name.</summary>
    public int[] StackIds { get; init; } = [];

    /// <summary>What the block costs the ring: payload plus the object's framing.</summary>
    public long Bytes => Payload.Length + TypeHeader.Length + 8;
}
