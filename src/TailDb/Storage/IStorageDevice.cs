namespace TailDb.Storage;

/// <summary>
/// The file seam (Garnet's IDevice idea, narrowed to what the store does): production uses
/// <see cref="FileStorageDevice"/>; tests wrap it to fail writes or fsyncs on demand.
/// </summary>
internal interface IStorageDevice
{
    IStorageFile Open(string path, FileMode mode, bool writable);

    /// <summary>Makes a create, rename or delete in <paramref name="directory"/> durable.</summary>
    void FlushDirectory(string directory);

    void Move(string source, string destination);

    void Delete(string path);
}

/// <summary>A file read and written only at explicit offsets (no shared position).</summary>
internal interface IStorageFile : IDisposable
{
    string Path { get; }

    long Length { get; }

    /// <summary>Reads until <paramref name="buffer"/> is full or the file ends; returns the bytes read.</summary>
    int Read(Span<byte> buffer, long offset);

    ValueTask<int> ReadAsync(Memory<byte> buffer, long offset, CancellationToken cancellationToken);

    void Write(ReadOnlySpan<byte> data, long offset);

    /// <summary>
    /// Starts writing [offset, offset + length) of the page cache to the device and, with
    /// <paramref name="wait"/>, waits until it is written (Linux sync_file_range; elsewhere
    /// nothing). Promises no durability (metadata is not flushed): it only spreads a large file's
    /// writeback so that its fsync is short. A zero length does nothing.
    /// </summary>
    void Writeback(long offset, long length, bool wait);

    /// <summary>fsync: data and metadata reach stable storage.</summary>
    void Flush();

    void SetLength(long length);
}
