namespace TailDb;

/// <summary>When a write is acknowledged.</summary>
public enum Durability
{
    /// <summary>
    /// Put returns once the record is written to the operating system (survives a process crash,
    /// not a power loss).
    /// </summary>
    None,

    /// <summary>
    /// Put returns once the record is fsynced; concurrent writers share one fsync (group commit).
    /// Survives a machine crash.
    /// </summary>
    Fsync,
}
