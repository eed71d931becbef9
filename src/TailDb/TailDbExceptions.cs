namespace TailDb;

/// <summary>Base of the exceptions the store throws on purpose.</summary>
public abstract class TailDbException : Exception
{
    protected TailDbException(string message, Exception? innerException = null)
        : base(message, innerException)
    {
    }
}

/// <summary>A record failed its checksum, or the files cannot be opened without risking a wrong value.</summary>
public sealed class TailDbCorruptionException : TailDbException
{
    public TailDbCorruptionException(string message, Exception? innerException = null)
        : base(message, innerException)
    {
    }
}

/// <summary>
/// A write or fsync failed earlier, so the store no longer accepts writes. Nothing is retried:
/// after a failed fsync the kernel may already have dropped the dirty pages, so a retry that
/// "succeeds" would lie (the PostgreSQL fsyncgate lesson). Reopen the store to recover.
/// </summary>
public sealed class TailDbFaultedException : TailDbException
{
    public TailDbFaultedException(string message, Exception? innerException = null)
        : base(message, innerException)
    {
    }
}

/// <summary>
/// The device failed one read (EIO) through <see cref="TailDbStore.Get(ReadOnlySpan{byte})"/> or
/// GetAsync, which have no status to return. The store is not faulted; other reads go on. The
/// status forms (TryGet, TryGetAsync) return <see cref="ReadStatus.IoError"/> instead of throwing.
/// </summary>
public sealed class TailDbReadException : TailDbException
{
    public TailDbReadException(string message, Exception? innerException = null)
        : base(message, innerException)
    {
    }
}

/// <summary>Another writer holds the directory's lock file.</summary>
public sealed class TailDbLockedException : TailDbException
{
    public TailDbLockedException(string directory, Exception? innerException = null)
        : base($"The TailDb directory '{directory}' is already open for writing by another store (its LOCK file is held); open it with ReadOnly = true or close the other writer.", innerException)
    {
        Directory = directory;
    }

    public string Directory { get; }
}
