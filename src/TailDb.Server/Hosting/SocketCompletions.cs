namespace TailDb.Server.Hosting;

/// <summary>
/// Where .NET runs the continuation of a completed socket read or write on Linux: on the epoll
/// thread that saw the event, or queued to the thread pool (the runtime's default). A process-wide
/// setting (the runtime reads DOTNET_SYSTEM_NET_SOCKETS_INLINE_COMPLETIONS once, when the first
/// socket operation starts), so the command line applies it before the server opens a socket.
/// </summary>
public enum SocketCompletions
{
    /// <summary>
    /// A connection's read, its commands and its flush run on the epoll thread, without a hop to
    /// the thread pool per read; one epoll thread per core. The server's default: measured to
    /// cost less CPU per request (docs/server.md, "Inline socket completions"). A command that
    /// blocked would hold up the other connections on that thread; none does (a GET miss is one
    /// positional read, an fsync SET awaits its group commit).
    /// </summary>
    Inline,

    /// <summary>The runtime's default: each completion is queued to the thread pool.</summary>
    ThreadPool,
}

/// <summary>Applies <see cref="SocketCompletions"/> to this process.</summary>
public static class SocketCompletionMode
{
    public const string Variable = "DOTNET_SYSTEM_NET_SOCKETS_INLINE_COMPLETIONS";

    /// <summary>Call before this process's first socket operation; later calls have no effect on the runtime.</summary>
    public static void Apply(SocketCompletions mode) =>
        Environment.SetEnvironmentVariable(Variable, mode == SocketCompletions.Inline ? "1" : null);
}
