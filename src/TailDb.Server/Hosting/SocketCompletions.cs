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
    /// the thread pool per read; as many epoll threads as --socket-threads (half the cores). The server's default: measured to
    /// cost less CPU per request (docs/server.md, "Inline socket completions"). A command that
    /// blocked would hold up the other connections on that thread; none does (a GET miss is one
    /// positional read, an fsync SET awaits its group commit).
    /// </summary>
    Inline,

    /// <summary>The runtime's default: each completion is queued to the thread pool.</summary>
    ThreadPool,
}

/// <summary>Applies <see cref="SocketCompletions"/> and the epoll thread count to this process.</summary>
public static class SocketCompletionMode
{
    public const string Variable = "DOTNET_SYSTEM_NET_SOCKETS_INLINE_COMPLETIONS";

    /// <summary>How many epoll threads (socket engines) the runtime starts; read once, with the variable above.</summary>
    public const string ThreadCountVariable = "DOTNET_SYSTEM_NET_SOCKETS_THREAD_COUNT";

    /// <summary>
    /// Call before this process's first socket operation; later calls have no effect on the
    /// runtime. <paramref name="threads"/> 0 leaves the count to the runtime (with inline
    /// completions, one epoll thread per core).
    /// </summary>
    public static void Apply(SocketCompletions mode, int threads = 0)
    {
        Environment.SetEnvironmentVariable(Variable, mode == SocketCompletions.Inline ? "1" : null);
        Environment.SetEnvironmentVariable(ThreadCountVariable, threads > 0 ? threads.ToString(System.Globalization.CultureInfo.InvariantCulture) : null);
    }
}
