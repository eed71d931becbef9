using TailDb.Tracing.Recording;

namespace TailDb.LoadTest.Tests.Recording;

public sealed class StreamPumpTests
{
    [Fact]
    public async Task EveryByteReachesTheSinkInOrderAndTheTaskCompletesWhenTheSourceEnds()
    {
        var bytes = new byte[3_000_000];
        new Random(7).NextBytes(bytes);
        using var source = new TricklingStream(bytes, failAfterReads: int.MaxValue);
        using var sink = new MemoryStream();

        await StreamPump.Start(source, sink, "pump under test").WaitAsync(TimeSpan.FromSeconds(30));

        Assert.Equal(bytes, sink.ToArray());
        Assert.True(source.Reads > 100, $"{source.Reads} reads: the source must hand out short chunks for this test to mean anything");
    }

    [Fact]
    public async Task ReadsOnAThreadOfItsOwnNotOnThePool()
    {
        using var source = new TricklingStream(new byte[10_000], failAfterReads: int.MaxValue);
        using var sink = new MemoryStream();

        await StreamPump.Start(source, sink, "EventPipe reader").WaitAsync(TimeSpan.FromSeconds(30));

        Assert.Equal("EventPipe reader", source.ReaderThreadName);
        Assert.False(source.ReaderWasPoolThread);
    }

    [Fact]
    public async Task AFailedReadFaultsTheTaskWithItsErrorAndKeepsWhatCameBefore()
    {
        var bytes = new byte[100_000];
        new Random(8).NextBytes(bytes);
        using var source = new TricklingStream(bytes, failAfterReads: 3);
        using var sink = new MemoryStream();

        var error = await Assert.ThrowsAsync<IOException>(() => StreamPump.Start(source, sink, "pump under test").WaitAsync(TimeSpan.FromSeconds(30)));

        Assert.Equal("the session's socket closed", error.Message);
        Assert.Equal(bytes.AsSpan(0, (int)sink.Length).ToArray(), sink.ToArray());
        Assert.True(sink.Length > 0);
    }

    /// <summary>A source that hands out 1-8191 bytes a read, as a socket does, and can fail on a given read.</summary>
    private sealed class TricklingStream(byte[] data, int failAfterReads) : Stream
    {
        private readonly Random _sizes = new(11);
        private int _position;

        public int Reads { get; private set; }

        public string? ReaderThreadName { get; private set; }

        public bool ReaderWasPoolThread { get; private set; }

        public override int Read(byte[] buffer, int offset, int count)
        {
            ReaderThreadName = Thread.CurrentThread.Name;
            ReaderWasPoolThread = Thread.CurrentThread.IsThreadPoolThread;
            if (Reads++ == failAfterReads)
            {
                throw new IOException("the session's socket closed");
            }

            int n = Math.Min(Math.Min(count, _sizes.Next(1, 8192)), data.Length - _position);
            data.AsSpan(_position, n).CopyTo(buffer.AsSpan(offset));
            _position += n;
            return n;
        }

        public override bool CanRead => true;

        public override bool CanSeek => false;

        public override bool CanWrite => false;

        public override long Length => throw new NotSupportedException();

        public override long Position { get => _position; set => throw new NotSupportedException(); }

        public override void Flush()
        {
        }

        public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

        public override void SetLength(long value) => throw new NotSupportedException();

        public override void Write(byte[] buffer, int offset, int count) => throw new NotSupportedException();
    }
}
