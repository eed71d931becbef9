using TailDb.Server.Diagnostics;

namespace TailDb.Server.Hosting;

/// <summary>What every connection shares: the store, the options, the counters, and the way to stop the server.</summary>
public sealed class ServerState(TailDbStore store, ServerOptions options, Action requestShutdown)
{
    public TailDbStore Store { get; } = store;

    public ServerOptions Options { get; } = options;

    /// <summary>Whether this server writes its Command events now: a session asked, and the server is not silenced (<see cref="ServerOptions.WritesEvents"/>, read after the session's check).</summary>
    public bool CommandEvents() => ServerEventSource.Log.CommandsEnabled() && Options.WritesEvents;

    /// <summary>As <see cref="CommandEvents"/>, for the connection events (opened, closed, protocol errors).</summary>
    public bool ConnectionEvents() => ServerEventSource.Log.ConnectionsEnabled() && Options.WritesEvents;

    public ServerStats Stats { get; } = new();

    public DateTime StartedUtc { get; } = DateTime.UtcNow;

    public int Port { get; set; }

    public void RequestShutdown() => requestShutdown();
}
