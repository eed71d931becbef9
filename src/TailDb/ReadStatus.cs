namespace TailDb;

/// <summary>The outcome of a read. Hot paths return this instead of throwing.</summary>
public enum ReadStatus
{
    /// <summary>Found in the cache.</summary>
    Hit,

    /// <summary>Not in the cache, read from its segment file.</summary>
    Miss,

    /// <summary>No such key.</summary>
    NotFound,

    /// <summary>The key's latest record failed its checksum; no value is returned.</summary>
    Corrupt,

    /// <summary>
    /// The device failed the read (EIO, a bad sector): no value is returned. Only this read failed;
    /// the store is not faulted, other keys still read, and a later read of this key may succeed.
    /// </summary>
    IoError,
}
