namespace TailDb.Tests.Storage;

public sealed class LockFileTests : IDisposable
{
    private readonly TestDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    [Fact]
    public void SecondWriterFailsNamingTheDirectory()
    {
        using var first = TailDbStore.Open(_dir.Options());
        var error = Assert.Throws<TailDbLockedException>(() => TailDbStore.Open(_dir.Options()));
        Assert.Contains(first.Directory, error.Message, StringComparison.Ordinal);
        Assert.Equal(first.Directory, error.Directory);
    }

    [Fact]
    public void DirectoryCanBeReopenedAfterTheWriterIsDisposed()
    {
        TailDbStore.Open(_dir.Options()).Dispose();
        using var again = TailDbStore.Open(_dir.Options());
        again.Put("k", "v"u8);
        Assert.NotNull(again.Get("k"));
    }

    [Fact]
    public void ReadOnlyOpenReadsWhileTheWriterHoldsTheLock()
    {
        using var writer = TailDbStore.Open(_dir.Options());
        writer.Put("k", "v"u8);
        using var reader = TailDbStore.Open(_dir.Options() with { ReadOnly = true });
        Assert.Equal("v"u8.ToArray(), reader.Get("k"));
        Assert.Throws<InvalidOperationException>(() => reader.Put("k", "w"u8));
    }
}
