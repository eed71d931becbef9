using System.Collections.Concurrent;
using System.IO.Pipelines;
using System.Net.Sockets;
using TailDb.Server.Diagnostics;

namespace TailDb.Server.Hosting;

/// <summary>
/// The server: takes connections from its transport up to --max-clients, closes idle ones, and on
/// shutdown stops accepting, lets every connection finish the commands it has read, then closes
/// the store (which releases the directory lock). Every Put has returned by then, so what was
/// acknowledged is written per the durability mode.
/// </summary>
public sealed class RespServer : IAsyncDisposable
{
    private static readonly byte[] TooManyClients = "-ERR max number of clients reached\r\n"u8.ToArray();

    private readonly ServerOptions _options;
    private readonly TailDbStore _store;
    private readonly ServerState _state;
    private readonly ConcurrentDictionary<long, (RespConnection Connection, Task Run)> _connections = new();
    private readonly TaskCompletionSource _stopped = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly Timer _idleSweep;
    private IConnectionListener _listener = null!;
    private long _nextId;
    private int _stopRequested;

    private RespServer(ServerOptions options, TailDbStore store, SocketThreadScheduler? durableWaiters)
    {
        _options = options;
        _store = store;
        DurableWaiters = durableWaiters;
        _state = new ServerState(store, options, RequestShutdown);
        TimeSpan sweep = TimeSpan.FromSeconds(Math.Clamp(options.IdleTimeoutSeconds / 4.0, 0.25, 1));
        _idleSweep = new Timer(_ => CloseIdle(), null, sweep, sweep);
    }

    public int Port => _listener.Port;

    public ServerState State => _state;

    /// <summary>Where fsync SETs resume after their group commit (null without fsync).</summary>
    internal SocketThreadScheduler? DurableWaiters { get; }

    /// <summary>Completes once a shutdown has drained the connections and closed the store.</summary>
    public Task Stopped => _stopped.Task;

    public static RespServer Start(ServerOptions options)
    {
        options.Validate();

        // With fsync, a group commit resumes its waiting connections on a socket thread, all in one go.
        SocketThreadScheduler? durableWaiters = options.Durability == Durability.Fsync ? SocketThreadScheduler.Create() : null;
        TailDbStore store;
        try
        {
            store = OpenStore(options, durableWaiters);
        }
        catch
        {
            durableWaiters?.Dispose();
            throw;
        }

        var server = new RespServer(options, store, durableWaiters);
        try
        {
            server._listener = options.Transport == Transport.Kestrel
                ? KestrelListener.Start(options.Bind, options.Port, server.ServeAsync)
                : SocketListener.Start(options.Bind, options.Port, server.ServeAsync);
        }
        catch (Exception e) when (e is SocketException or IOException)
        {
            server._idleSweep.Dispose();
            store.Dispose();
            durableWaiters?.Dispose();
            throw new ServerException(ExitCode.BindFailed, $"cannot listen on {options.Bind}:{options.Port}: {e.Message}", e);
        }

        server._state.Port = server.Port;
        return server;
    }

    private static TailDbStore OpenStore(ServerOptions options, SocketThreadScheduler? durableWaiters)
    {
        try
        {
            return TailDbStore.Open(options.StoreOptions with { DurableWaitersScheduler = durableWaiters });
        }
        catch (Exception e) when (e is TailDbException or IOException or UnauthorizedAccessException or ArgumentException)
        {
            throw new ServerException(ExitCode.StoreUnavailable, $"cannot open the store in '{options.Directory}': {e.Message}", e);
        }
    }

    /// <summary>SHUTDOWN and SIGTERM: returns at once; <see cref="Stopped"/> completes when done.</summary>
    public void RequestShutdown()
    {
        if (Interlocked.Exchange(ref _stopRequested, 1) == 0)
        {
            _ = Task.Run(StopAsync);
        }
    }

    public async ValueTask DisposeAsync()
    {
        RequestShutdown();
        await Stopped.ConfigureAwait(false);
    }

    /// <summary>One accepted connection, from either transport: admitted (or told the server is full), registered, served (internal: the tests' way in without a socket).</summary>
    internal async Task ServeAsync(PipeReader input, PipeWriter output, Action abort, Action? completed)
    {
        Interlocked.Increment(ref _state.Stats.ConnectionsReceived);
        if (Volatile.Read(ref _stopRequested) != 0 || Interlocked.Increment(ref _state.Stats.ConnectedClients) > _options.MaxClients)
        {
            if (Volatile.Read(ref _stopRequested) == 0)
            {
                Interlocked.Decrement(ref _state.Stats.ConnectedClients);
            }

            Interlocked.Increment(ref _state.Stats.ConnectionsRejected);
            await RejectAsync(output).ConfigureAwait(false);
            await input.CompleteAsync().ConfigureAwait(false);
            completed?.Invoke();
            return;
        }

        long id = Interlocked.Increment(ref _nextId);
        var connection = new RespConnection(input, output, abort, completed, _state, id);
        if (_state.ConnectionEvents())
        {
            ServerEventSource.Log.ConnectionOpened(id);
        }

        // Registered before it runs, so a shutdown racing this accept still drains it. Its first
        // read runs here, inside SetResult: on the socket thread that accepted it, as every later
        // read does. Queued to the pool (as until 2026-11-28), a connection whose client had already
        // sent served its first reads on a pool thread, beside the socket thread and against it for
        // the writer lock and the two cores (50-97 such reads in each redis-benchmark run logged).
        var registered = new TaskCompletionSource();
        Task run = RunConnection(connection, registered.Task);
        _connections[id] = (connection, run);
        registered.SetResult();
        await run.ConfigureAwait(false);
    }

    private static async Task RejectAsync(PipeWriter output)
    {
        try
        {
            await output.WriteAsync(TooManyClients).ConfigureAwait(false);
            await output.CompleteAsync().ConfigureAwait(false);
        }
        catch (Exception e) when (e is IOException or SocketException or ObjectDisposedException or InvalidOperationException)
        {
        }
    }

    private async Task RunConnection(RespConnection connection, Task registered)
    {
        await registered.ConfigureAwait(false);
        try
        {
            await connection.RunAsync().ConfigureAwait(false);
        }
        finally
        {
            _connections.TryRemove(connection.Id, out _);
            Interlocked.Decrement(ref _state.Stats.ConnectedClients);
        }
    }

    private void CloseIdle()
    {
        if (_options.IdleTimeoutSeconds == 0)
        {
            return;
        }

        long limit = _options.IdleTimeoutSeconds * 1000L;
        foreach ((RespConnection connection, _) in _connections.Values)
        {
            if (connection.IdleMilliseconds > limit)
            {
                connection.Abort(ref _state.Stats.IdleClosed);
            }
        }
    }

    private async Task StopAsync()
    {
        try
        {
            await _listener.StopAcceptingAsync().ConfigureAwait(false);
            await _idleSweep.DisposeAsync().ConfigureAwait(false);
            foreach ((RespConnection connection, _) in _connections.Values)
            {
                connection.Stop();
            }

            Task drained = Task.WhenAll(_connections.Values.Select(c => c.Run));
            if (await Task.WhenAny(drained, Task.Delay(_options.DrainTimeout)).ConfigureAwait(false) != drained)
            {
                foreach ((RespConnection connection, _) in _connections.Values)
                {
                    _ = connection.Abort();
                }

                await drained.ConfigureAwait(false);
            }

            await _listener.DisposeAsync().ConfigureAwait(false);
            _store.Dispose();
            DurableWaiters?.Dispose();
            _stopped.TrySetResult();
        }
#pragma warning disable CA1031 // Whatever failed, the waiter must learn it.
        catch (Exception e)
#pragma warning restore CA1031
        {
            _stopped.TrySetException(e);
        }
    }
}
