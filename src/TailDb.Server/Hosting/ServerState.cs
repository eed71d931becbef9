namespace TailDb.Server.Hosting;

/// <summary>What every connection shares: the store, the options, the counters, and the way to stop the server.</summary>
public sealed class ServerState(TailDbStore store, ServerOptions options, Action requestShutdown)
{
    public TailDbStore Store { get; } = store;

    public ServerOptions Options { get; } = options;

    /// <summary><see cref="ServerOptions.WritesEvents"/>, read on a traced server's every command, after the session's check.</summary>
    public bool WritesEvents { get; } = options.WritesEvents;

    public ServerStats Stats { get; } = new();

    public DateTime StartedUtc { get; } = DateTime.UtcNow;

    public int Port { get; set; }

    public void RequestShutdown() => requestShutdown();
}
