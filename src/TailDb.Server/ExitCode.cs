namespace TailDb.Server;

/// <summary>Process exit codes of the server.</summary>
public enum ExitCode
{
    /// <summary>Stopped by SHUTDOWN or SIGTERM after finishing in-flight commands.</summary>
    Success = 0,

    /// <summary>An unexpected exception, printed in full.</summary>
    UnexpectedError = 1,

    /// <summary>A flag is unknown, malformed or out of range.</summary>
    InvalidArguments = 2,

    /// <summary>A non-loopback bind without --requirepass or --unsafe-bind.</summary>
    UnsafeBind = 3,

    /// <summary>The port could not be bound.</summary>
    BindFailed = 4,

    /// <summary>The store could not be opened (locked by another writer, corrupt, unreadable).</summary>
    StoreUnavailable = 5,

    /// <summary>The GC mode is unknown, its runtimeconfig is malformed, or the runtime did not take it.</summary>
    BadRuntimeConfig = 6,

    /// <summary>The warm-up (before listening) failed: its scratch store could not be made or deleted, or the scratch server did not answer as it should.</summary>
    WarmUpFailed = 7,
}
