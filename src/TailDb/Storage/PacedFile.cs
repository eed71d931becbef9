namespace TailDb.Storage;

/// <summary>
/// Compaction's view of a file: reads and writes go in chunks of <see cref="ChunkBytes"/>, each
/// charged to the rate limiter first, so the copy never takes the disk or a core for long at a
/// stretch. Written bytes are pushed to the device every <c>syncBytes</c> (start the writeback of
/// the newest range, wait for the one before; RocksDB's <c>bytes_per_sync</c>), so the closing
/// fsync has little left to flush, and a request's fsync never queues behind tens of megabytes of
/// compaction's dirty pages in one journal commit.
/// </summary>
internal sealed class PacedFile(IStorageFile inner, IoRateLimiter limiter, long syncBytes) : IStorageFile
{
    /// <summary>Unit of pacing: at 32 MiB/s one chunk is ~2 ms of budget.</summary>
    public const int ChunkBytes = 64 << 10;

    private long _writebackStarted;
    private long _writebackAwaited;
    private long _written;

    public string Path => inner.Path;

    public long Length => inner.Length;

    public int Read(Span<byte> buffer, long offset)
    {
        // Charge what the file still holds, not the buffer's room: compaction reads a small
        // segment into a 64 KiB buffer, and charging the whole buffer paced an 8 KiB segment's
        // copy ~5x slower than the configured rate. (Length is one fstat: once per read.)
        long end = inner.Length;
        int total = 0;
        while (total < buffer.Length)
        {
            int length = (int)Math.Min(Math.Min(ChunkBytes, buffer.Length - total), Math.Max(0, end - (offset + total)));
            if (length == 0)
            {
                break;
            }

            limiter.Charge(length);
            int n = inner.Read(buffer.Slice(total, length), offset + total);
            total += n;
            if (n < length)
            {
                break;
            }
        }

        return total;
    }

    public async ValueTask<int> ReadAsync(Memory<byte> buffer, long offset, CancellationToken cancellationToken)
    {
        limiter.Charge((int)Math.Min(buffer.Length, Math.Max(0, inner.Length - offset)));
        return await inner.ReadAsync(buffer, offset, cancellationToken).ConfigureAwait(false);
    }

    public void Write(ReadOnlySpan<byte> data, long offset)
    {
        for (int done = 0; done < data.Length; done += ChunkBytes)
        {
            int length = Math.Min(ChunkBytes, data.Length - done);
            limiter.Charge(length);
            inner.Write(data.Slice(done, length), offset + done);
            _written = Math.Max(_written, offset + done + length);
            WritebackIfDue();
        }
    }

    public void Writeback(long offset, long length, bool wait) => inner.Writeback(offset, length, wait);

    public void Flush() => inner.Flush();

    public void SetLength(long length) => inner.SetLength(length);

    public void Dispose() => inner.Dispose();

    /// <summary>Keeps at most about two sync ranges of written bytes not yet on the device.</summary>
    private void WritebackIfDue()
    {
        if (syncBytes <= 0 || _written - _writebackStarted < syncBytes)
        {
            return;
        }

        inner.Writeback(_writebackStarted, _written - _writebackStarted, wait: false);
        inner.Writeback(_writebackAwaited, _writebackStarted - _writebackAwaited, wait: true);
        _writebackAwaited = _writebackStarted;
        _writebackStarted = _written;
    }
}
