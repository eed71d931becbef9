using System.Runtime.InteropServices;
using Microsoft.Win32.SafeHandles;

namespace TailDb.Storage;

/// <summary>Real files: positional reads and writes with <see cref="RandomAccess"/> on a SafeFileHandle.</summary>
internal sealed partial class FileStorageDevice : IStorageDevice
{
    public static FileStorageDevice Instance { get; } = new();

    private FileStorageDevice()
    {
    }

    public IStorageFile Open(string path, FileMode mode, bool writable)
    {
        // FileShare.ReadWrite | Delete: a read-only opener may read while we write, and compaction
        // deletes files that in-flight reads still hold open (POSIX keeps the inode alive).
        SafeFileHandle handle = File.OpenHandle(
            path,
            mode,
            writable ? FileAccess.ReadWrite : FileAccess.Read,
            FileShare.ReadWrite | FileShare.Delete);
        return new StorageFile(path, handle);
    }

    public void FlushDirectory(string directory)
    {
        // Windows has no way to fsync a directory entry (NTFS journals its metadata); POSIX needs it,
        // or a freshly created or renamed file can vanish after a power loss.
        if (OperatingSystem.IsWindows())
        {
            return;
        }

        int fd = Open(directory, 0 /* O_RDONLY */);
        if (fd < 0)
        {
            throw new IOException($"Cannot open directory '{directory}' to fsync it (errno {Marshal.GetLastPInvokeError()}).");
        }

        try
        {
            if (Fsync(fd) != 0)
            {
                throw new IOException($"fsync of directory '{directory}' failed (errno {Marshal.GetLastPInvokeError()}).");
            }
        }
        finally
        {
            _ = Close(fd);
        }
    }

    public void Move(string source, string destination) => File.Move(source, destination, overwrite: true);

    public void Delete(string path) => File.Delete(path);

    [LibraryImport("libc", EntryPoint = "open", SetLastError = true, StringMarshalling = StringMarshalling.Utf8)]
    private static partial int Open(string path, int flags);

    [LibraryImport("libc", EntryPoint = "fsync", SetLastError = true)]
    private static partial int Fsync(int fd);

    [LibraryImport("libc", EntryPoint = "close", SetLastError = true)]
    private static partial int Close(int fd);

    [LibraryImport("libc", EntryPoint = "sync_file_range", SetLastError = true)]
    private static partial int SyncFileRange(int fd, long offset, long length, uint flags);

    // <linux/fs.h>: SYNC_FILE_RANGE_WAIT_BEFORE = 1, WRITE = 2, WAIT_AFTER = 4.
    private const uint SyncRangeWrite = 2;
    private const uint SyncRangeWriteAndWait = 1 | 2 | 4;

    private sealed class StorageFile(string path, SafeFileHandle handle) : IStorageFile
    {
        public string Path { get; } = path;

        public long Length => RandomAccess.GetLength(handle);

        public int Read(Span<byte> buffer, long offset)
        {
            int total = 0;
            while (total < buffer.Length)
            {
                int n = RandomAccess.Read(handle, buffer[total..], offset + total);
                if (n == 0)
                {
                    break;
                }

                total += n;
            }

            return total;
        }

        public async ValueTask<int> ReadAsync(Memory<byte> buffer, long offset, CancellationToken cancellationToken)
        {
            int total = 0;
            while (total < buffer.Length)
            {
                int n = await RandomAccess.ReadAsync(handle, buffer[total..], offset + total, cancellationToken).ConfigureAwait(false);
                if (n == 0)
                {
                    break;
                }

                total += n;
            }

            return total;
        }

        public void Write(ReadOnlySpan<byte> data, long offset) => RandomAccess.Write(handle, data, offset);

        public void Writeback(long offset, long length, bool wait)
        {
            // A zero length would mean "to the end of the file" to sync_file_range.
            if (length <= 0 || !OperatingSystem.IsLinux())
            {
                return;
            }

            bool added = false;
            try
            {
                handle.DangerousAddRef(ref added);
                if (SyncFileRange((int)handle.DangerousGetHandle(), offset, length, wait ? SyncRangeWriteAndWait : SyncRangeWrite) != 0)
                {
                    throw new IOException($"sync_file_range of '{Path}' at {offset} (+{length}) failed (errno {Marshal.GetLastPInvokeError()}).");
                }
            }
            finally
            {
                if (added)
                {
                    handle.DangerousRelease();
                }
            }
        }

        public void Flush() => RandomAccess.FlushToDisk(handle);

        public void SetLength(long length) => RandomAccess.SetLength(handle, length);

        public void Dispose() => handle.Dispose();
    }
}
