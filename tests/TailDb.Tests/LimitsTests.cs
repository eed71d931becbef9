namespace TailDb.Tests;

public sealed class LimitsTests : IDisposable
{
    private readonly TestDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    [Fact]
    public void EmptyKeyIsRejectedOnEveryOperation()
    {
        using var store = TailDbStore.Open(_dir.Options());
        Assert.Contains("empty", Assert.Throws<ArgumentException>(() => store.Put(ReadOnlySpan<byte>.Empty, "v"u8)).Message, StringComparison.Ordinal);
        Assert.Throws<ArgumentException>(() => store.Get(ReadOnlySpan<byte>.Empty));
        Assert.Throws<ArgumentException>(() => store.Delete(""));
    }

    [Fact]
    public void KeyOver64KiBIsRejectedAndKeyOfExactly64KiBIsAccepted()
    {
        using var store = TailDbStore.Open(_dir.Options());
        var error = Assert.Throws<ArgumentException>(() => store.Put(new byte[(64 * 1024) + 1], "v"u8));
        Assert.Contains("65536", error.Message, StringComparison.Ordinal);

        byte[] largest = new byte[64 * 1024];
        largest[^1] = 7;
        store.Put(largest, "v"u8);
        Assert.Equal("v"u8.ToArray(), store.Get(largest));
    }

    [Fact]
    public void ValueOverMaxValueBytesIsRejectedAndNothingIsWritten()
    {
        using var store = TailDbStore.Open(_dir.Options() with { MaxValueBytes = 1000 });
        var error = Assert.Throws<ArgumentException>(() => store.Put("k", new byte[1001]));
        Assert.Contains("1000", error.Message, StringComparison.Ordinal);
        Assert.Null(store.Get("k"));
        store.Put("k", new byte[1000]);
        Assert.Equal(1000, store.Get("k")!.Length);
    }

    [Fact]
    public void InvalidOptionsNameTheOption()
    {
        var error = Assert.Throws<ArgumentOutOfRangeException>(() => TailDbStore.Open(_dir.Options() with { CacheCapacityBytes = -1 }));
        Assert.Equal("CacheCapacityBytes", error.ParamName);
    }
}
