namespace TailDb.Server.Hosting;

/// <summary>What every connection shares: the store, the options, the counters, and the way to stop the server.</summary>
public sealed class ServerState(TailDbStore store, ServerOptions options, Action requestShutdown)
{
    public TailDbStore Store { get; } = store;

    public ServerOptions Options { get; } = options;

    public ServerStats Stats { get; } = new();

    public DateTime StartedUtc { get; } = DateTime.UtcNow;

    public int Port { get; set; }

    public void RequestShutdown() => requestShutdown();
}
