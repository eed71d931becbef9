using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using TailDb.Analyzer.Sources;
using TailDb.Analyzer.Sources.NetTrace;
using TailDb.Analyzer.Watch;

namespace TailDb.Analyzer.Tests.Watch;

/// <summary>
/// The watch's one walk over each block of another process's stream: compressed headers keep the
/// previous event's fields, and a damaged block ends the walk with a status, never an exception or
/// a read past the block.
/// </summary>
public sealed class EventBlockReaderTests
{
    private static readonly Guid Request = new("0000002a-0000-0000-0000-0000000000f0");

    private static byte[] ThreeEvents() => EventBlocks.Compressed(
        new RawEvent(1_000, [1, 2, 3, 4], MetadataId: 7, Sequence: (4, 11), ThreadId: 21, StackId: 0, ActivityId: Request),
        new RawEvent(300, [5, 6]),                                   // everything but the time repeats
        new RawEvent(70_000, [7], MetadataId: 9, Sequence: (0, 12), ThreadId: 22, StackId: 5, ActivityId: Guid.Empty));

    [Fact]
    public void ACompressedHeaderKeepsThePreviousEventsFieldsItDoesNotSpell()
    {
        var block = ThreeEvents();
        var reader = new EventBlockReader(block);

        Assert.True(reader.MoveNext());
        Assert.Equal((7, 5, 11L, 21L, 0, 1_000L), (reader.MetadataId, reader.SequenceNumber, reader.CaptureThreadId, reader.ThreadId, reader.StackId, reader.Timestamp));
        Assert.Equal(Request, reader.ActivityId);
        Assert.Equal(new ActivityKey(0x2a, unchecked((long)0xf000000000000000), 0, 0), reader.PairingKey(0));
        Assert.Equal([1, 2, 3, 4], reader.Payload.ToArray());
        Assert.True(reader.SequenceExplicit);

        Assert.True(reader.MoveNext());
        Assert.Equal((7, 6, 11L, 21L, 1_300L), (reader.MetadataId, reader.SequenceNumber, reader.CaptureThreadId, reader.ThreadId, reader.Timestamp));
        Assert.Equal(Request, reader.ActivityId);
        Assert.Equal([5, 6], reader.Payload.ToArray());
        Assert.False(reader.SequenceExplicit);
        Assert.False(reader.StackIdExplicit);

        Assert.True(reader.MoveNext());
        Assert.Equal((9, 7, 12L, 22L, 5, 71_300L), (reader.MetadataId, reader.SequenceNumber, reader.CaptureThreadId, reader.ThreadId, reader.StackId, reader.Timestamp));
        Assert.Equal(new ActivityKey(0, 0, 22, 0), reader.PairingKey(0)); // no activity id: paired by thread
        Assert.True(reader.StackIdExplicit);

        Assert.False(reader.MoveNext());
        Assert.False(reader.Corrupt);
    }

    [Fact]
    public void UncompressedHeadersSpellEveryFieldAndSkipTheirPadding()
    {
        var block = EventBlocks.Uncompressed((3, 40, 8, 2, 500, Request, [9]), (4, 41, 8, 0, 900, Guid.Empty, [1, 2, 3, 4, 5]));
        var reader = new EventBlockReader(block);

        Assert.True(reader.MoveNext());
        Assert.Equal((3, 40, 8L, 8L, 2, 500L), (reader.MetadataId, reader.SequenceNumber, reader.ThreadId, reader.CaptureThreadId, reader.StackId, reader.Timestamp));
        Assert.Equal(Request, reader.ActivityId);
        Assert.Equal([9], reader.Payload.ToArray());
        Assert.True(reader.SequenceExplicit && reader.StackIdExplicit);
        Assert.True(reader.MoveNext());
        Assert.Equal((4, 41, 900L), (reader.MetadataId, reader.SequenceNumber, reader.Timestamp));
        Assert.Equal([1, 2, 3, 4, 5], reader.Payload.ToArray());
        Assert.False(reader.MoveNext());
        Assert.False(reader.Corrupt);
    }

    [Fact]
    public void EveryCutOfABlockEndsTheWalkCorruptUnlessItFallsBetweenEvents()
    {
        var block = ThreeEvents();
        var boundaries = EventEnds(block);
        for (var length = 0; length < block.Length; length++)
        {
            var (events, corrupt) = Walk(block.AsSpan(0, length));

            var endsBetweenEvents = length >= EventBlocks.HeaderBytes && (length == EventBlocks.HeaderBytes || boundaries.Contains(length));
            Assert.True(corrupt != endsBetweenEvents, $"cut at {length} of {block.Length}: corrupt {corrupt}, {events} events");
            Assert.True(events <= 3);
        }
    }

    [Theory]
    [InlineData(new byte[] { 20, 0, 1, 0 }, "a header size past the block")]
    [InlineData(new byte[] { 2, 0, 1, 0 }, "a header size under 4")]
    [InlineData(new byte[] { 4, 0, 1, 0, 0x81, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01, 0, 0 }, "a metadata id varint over 5 bytes")]
    [InlineData(new byte[] { 4, 0, 1, 0, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01 }, "a timestamp varint over 10 bytes")]
    [InlineData(new byte[] { 4, 0, 1, 0, 0x80, 0x05, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F }, "a payload size past the block")]
    [InlineData(new byte[] { 4, 0, 1, 0, 0x90, 0x05, 1, 2, 3 }, "an activity id past the block")]
    [InlineData(new byte[] { 4, 0, 0, 0, 76, 0, 0, 0 }, "an uncompressed header past the block")]
    public void ADamagedBlockIsCorrupt(byte[] block, string damage)
    {
        var (_, corrupt) = Walk(block);

        Assert.True(corrupt, damage);
    }

    [Fact]
    public void RandomDamageNeverThrowsOrReadsPastTheBlock()
    {
        var good = ThreeEvents();
        var random = new Random(11);
        for (var round = 0; round < 5_000; round++)
        {
            var block = (byte[])good.Clone();
            for (var flips = random.Next(1, 6); flips > 0; flips--)
            {
                block[random.Next(block.Length)] = (byte)random.Next(256);
            }

            var (events, _) = Walk(block.AsSpan(0, random.Next(block.Length + 1)));

            Assert.True(events <= block.Length, $"round {round}: {events} events from {block.Length} bytes");
        }
    }

    /// <summary>Where each event of a whole block ends.</summary>
    private static HashSet<int> EventEnds(byte[] block)
    {
        var ends = new HashSet<int>();
        var reader = new EventBlockReader(block);
        while (reader.MoveNext())
        {
            ends.Add(PayloadEnd(block, reader.Payload));
        }

        return ends;
    }

    private static int PayloadEnd(byte[] block, ReadOnlySpan<byte> payload) =>
        (int)Unsafe.ByteOffset(ref MemoryMarshal.GetArrayDataReference(block), ref MemoryMarshal.GetReference(payload)) + payload.Length;

    private static (int Events, bool Corrupt) Walk(ReadOnlySpan<byte> block)
    {
        var reader = new EventBlockReader(block);
        var events = 0;
        while (reader.MoveNext())
        {
            _ = reader.Payload.Length + reader.ActivityId.GetHashCode() + reader.PairingKey(0).GetHashCode();
            events++;
        }

        return (events, reader.Corrupt);
    }
}
