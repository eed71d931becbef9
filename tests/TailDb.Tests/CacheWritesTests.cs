using System.Buffers;

namespace TailDb.Tests;

/// <summary><see cref="TailDbOptions.CacheWrites"/>: what a write leaves in the value cache.</summary>
public sealed class CacheWritesTests : IDisposable
{
    private readonly TestDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    [Theory]
    [InlineData(CacheWrites.Through, ReadStatus.Hit)]
    [InlineData(CacheWrites.Invalidate, ReadStatus.Miss)]
    public async Task AReadAfterAWriteHitsOnlyWhenWritesGoThrough(CacheWrites mode, ReadStatus firstRead)
    {
        using var store = TailDbStore.Open(_dir.Options() with { CacheWrites = mode });
        var value = new ArrayBufferWriter<byte>();
        store.Put("single"u8, "1"u8);
        await store.PutBatchAsync([new BatchPut("batched"u8.ToArray(), "2"u8.ToArray())], new PutStatus[1]);

        Assert.Equal(firstRead, store.TryGet("single"u8, value));
        Assert.Equal(firstRead, store.TryGet("batched"u8, value));
        Assert.Equal(ReadStatus.Hit, store.TryGet("batched"u8, value));
    }

    [Fact]
    public void AnInvalidatingWriteDropsTheOldCachedValue()
    {
        using var store = TailDbStore.Open(_dir.Options() with { CacheWrites = CacheWrites.Invalidate });
        var value = new ArrayBufferWriter<byte>();
        store.Put("k"u8, "old"u8);
        store.TryGet("k"u8, value);
        Assert.Equal(ReadStatus.Hit, store.TryGet("k"u8, value));

        store.Put("k"u8, "new"u8);
        value.Clear();
        Assert.Equal(ReadStatus.Miss, store.TryGet("k"u8, value));
        Assert.Equal("new"u8.ToArray(), value.WrittenSpan.ToArray());
    }
}
