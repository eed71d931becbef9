namespace TailDb.Storage;

/// <summary>
/// One writer per directory. FileShare.None maps to an exclusive advisory flock on Unix and a share
/// lock on Windows; either is released by the OS when the process dies, so a crashed writer never
/// leaves a stale lock behind (unlike a "pid file").
/// </summary>
internal sealed class LockFile : IDisposable
{
    public const string FileName = "LOCK";
    private readonly FileStream _stream;

    private LockFile(FileStream stream) => _stream = stream;

    public static LockFile Acquire(string directory)
    {
        string path = Path.Combine(directory, FileName);
        try
        {
            return new LockFile(new FileStream(path, FileMode.OpenOrCreate, FileAccess.ReadWrite, FileShare.None));
        }
        catch (IOException e)
        {
            throw new TailDbLockedException(directory, e);
        }
    }

    public void Dispose() => _stream.Dispose();
}
