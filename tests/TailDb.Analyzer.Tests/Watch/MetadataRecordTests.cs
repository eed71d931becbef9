using TailDb.Analyzer.Sources.NetTrace;
using TailDb.Analyzer.Watch;

namespace TailDb.Analyzer.Tests.Watch;

public sealed class MetadataRecordTests
{
    [Fact]
    public void AMetadataPayloadNamesItsIdProviderEventIdAndName()
    {
        Assert.True(MetadataRecord.TryRead(EventBlocks.MetadataPayload(12, "TailDb", 3, "GetStart"), out var record));

        Assert.Equal(new MetadataRecord(12, "TailDb", 3, "GetStart"), record);
    }

    [Fact]
    public void EveryCutBeforeTheEventNamesTerminatorIsRejected()
    {
        var payload = EventBlocks.MetadataPayload(12, "TailDb", 3, "GetStart");
        var nameEnd = 4 + ("TailDb".Length * 2) + 2 + 4 + ("GetStart".Length * 2) + 2;
        for (var length = 0; length < payload.Length; length++)
        {
            Assert.Equal(length >= nameEnd, MetadataRecord.TryRead(payload.AsSpan(0, length), out _));
        }
    }
}
