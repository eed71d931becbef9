using TailDb.Storage;

namespace TailDb.Tests.Storage;

public sealed class PacedFileTests : IDisposable
{
    private readonly TestDirectory _dir = new();
    private readonly FailingDevice _device = new();

    public void Dispose() => _dir.Dispose();

    private static byte[] Pattern(int length)
    {
        var data = new byte[length];
        new Random(7).NextBytes(data);
        return data;
    }

    [Fact]
    public void AWriteLandsWholeAndEveryByteIsChargedToTheBudget()
    {
        var limiter = new IoRateLimiter(0);
        byte[] data = Pattern((3 * PacedFile.ChunkBytes) + 123);
        using (var file = new PacedFile(_device.Open(Path.Combine(_dir.Path, "out"), FileMode.CreateNew, writable: true), limiter, syncBytes: 0))
        {
            file.Write(data, 10);
        }

        Assert.Equal(data.Length, limiter.Charged);
        Assert.Equal(data, File.ReadAllBytes(Path.Combine(_dir.Path, "out"))[10..]);
        Assert.Equal(0, _device.Writebacks);
    }

    [Fact]
    public void WrittenBytesArePushedToTheDeviceEverySyncRange()
    {
        var limiter = new IoRateLimiter(0);
        using var file = new PacedFile(_device.Open(Path.Combine(_dir.Path, "out"), FileMode.CreateNew, writable: true), limiter, syncBytes: 128 << 10);

        file.Write(Pattern(1 << 20), 0);

        // 1 MiB in 128 KiB ranges: each due range starts its writeback and waits for the one before.
        Assert.Equal(2 * 8, _device.Writebacks);
    }

    [Fact]
    public void AReadReturnsTheFileInChunksAndChargesOnlyTheBytesTheFileHeld()
    {
        byte[] data = Pattern((2 * PacedFile.ChunkBytes) + 5);
        string path = Path.Combine(_dir.Path, "in");
        File.WriteAllBytes(path, data);
        var limiter = new IoRateLimiter(0);
        using var file = new PacedFile(_device.Open(path, FileMode.Open, writable: false), limiter, syncBytes: 0);

        var buffer = new byte[data.Length + 100];
        int read = file.Read(buffer, 0);

        Assert.Equal(data.Length, read);
        Assert.Equal(data, buffer[..read]);
        Assert.Equal(data.Length, limiter.Charged);
    }

    [Fact]
    public void AZeroLengthWritebackDoesNothing()
    {
        // sync_file_range reads a zero length as "to the end of the file"; the device must not pass it on.
        using IStorageFile file = FileStorageDevice.Instance.Open(Path.Combine(_dir.Path, "out"), FileMode.CreateNew, writable: true);
        file.Write(Pattern(4096), 0);

        file.Writeback(0, 0, wait: true);
        file.Writeback(0, 4096, wait: true);
    }
}
