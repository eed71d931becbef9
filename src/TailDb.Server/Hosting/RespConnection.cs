using System.Buffers;
using System.Diagnostics;
using System.IO.Pipelines;
using System.Net.Sockets;
using TailDb.Server.Commands;
using TailDb.Server.Diagnostics;
using TailDb.Server.Protocol;

namespace TailDb.Server.Hosting;

/// <summary>
/// One client: reads whatever the socket has, runs every complete command in it (pipelining) with
/// the arrival stamp of that read, and flushes the replies once per read (or sooner when they pile
/// up). A malformed frame gets `-ERR Protocol error: ...` and closes this connection only.
/// </summary>
public sealed class RespConnection
{
    // Replies are flushed mid-batch past this many bytes, so a long pipeline of large GETs does
    // not buffer all its replies before the first byte goes out.
    private const int FlushThreshold = 64 << 10;

    private readonly Action _abort;
    private readonly Action? _completed;
    private readonly PipeReader _input;
    private readonly PipeWriter _output;
    private readonly ServerState _server;
    private readonly CommandContext _context;
    private readonly RespLimits _limits;
    private readonly SetBatch _batch = new();
    private long _lastActivity = Environment.TickCount64;
    private volatile bool _stopping;
    private int _aborted;
    private int _needed;
    private long _commands;

    /// <param name="abort">Closes the transport at once (idle timeout, drain timeout).</param>
    /// <param name="completed">Releases the transport after both pipes are completed (null if the transport does that itself).</param>
    public RespConnection(PipeReader input, PipeWriter output, Action abort, Action? completed, ServerState server, long id)
    {
        _input = input;
        _output = output;
        _abort = abort;
        _completed = completed;
        _server = server;
        _context = new CommandContext(server, _output, id) { Authenticated = server.Options.RequirePass is null };
        _limits = server.Options.Limits;
        Id = id;
    }

    public long Id { get; }

    /// <summary>Milliseconds since the last read or completed flush.</summary>
    public long IdleMilliseconds => Environment.TickCount64 - Volatile.Read(ref _lastActivity);

    /// <summary>Finish the commands already read, then close (SHUTDOWN, SIGTERM).</summary>
    public void Stop()
    {
        _stopping = true;
        _input.CancelPendingRead();
    }

    /// <summary>
    /// Close now: an idle client, or one still busy when the drain timeout ran out. True only for
    /// the call that closed it: the idle sweep runs every quarter second, and an aborted connection
    /// stays in the server's table until its loop has ended, so a busy machine can sweep it again.
    /// </summary>
    public bool Abort()
    {
        long uncounted = 0;
        return Abort(ref uncounted);
    }

    /// <summary>
    /// <see cref="Abort()"/>, counting the close in <paramref name="closes"/> before the socket
    /// closes: a client that has seen its connection end then reads the count that says why (a
    /// count taken after the close raced the client's INFO and a test's read of it).
    /// </summary>
    public bool Abort(ref long closes)
    {
        _stopping = true;
        if (Interlocked.Exchange(ref _aborted, 1) != 0)
        {
            return false;
        }

        Interlocked.Increment(ref closes);
        _abort();
        return true;
    }

    public async Task RunAsync()
    {
        try
        {
            await ServeAsync().ConfigureAwait(false);
        }
        catch (Exception e) when (e is IOException or SocketException or ObjectDisposedException or OperationCanceledException or Microsoft.AspNetCore.Connections.ConnectionResetException or Microsoft.AspNetCore.Connections.ConnectionAbortedException)
        {
            // The client went away (or was aborted): nothing to answer.
        }
#pragma warning disable CA1031 // A bug in one command must not take the server down: report it, close this client.
        catch (Exception e)
#pragma warning restore CA1031
        {
            await Console.Error.WriteLineAsync($"connection {Id}: internal error: {e}").ConfigureAwait(false);
        }
        finally
        {
            await _input.CompleteAsync().ConfigureAwait(false);
            try
            {
                await _output.CompleteAsync().ConfigureAwait(false);
            }
            catch (Exception e) when (e is IOException or SocketException or ObjectDisposedException)
            {
                // Unflushed replies to a client that is gone.
            }

            _completed?.Invoke();
            if (_server.ConnectionEvents())
            {
                ServerEventSource.Log.ConnectionClosed(Id, _commands);
            }
        }
    }

    private async Task ServeAsync()
    {
        while (true)
        {
            ReadResult result = await _input.ReadAsync().ConfigureAwait(false);
            long arrival = Stopwatch.GetTimestamp();
            bool events = _server.CommandEvents();
            Touch();
            ReadOnlySequence<byte> buffer = result.Buffer;
            string? protocolError = null;
            while (buffer.Length >= _needed)
            {
                byte[]? rented = null;
                try
                {
                    ParseStatus status = Parse(buffer, out int consumed, out string? error, ref rented);
                    if (status == ParseStatus.Incomplete)
                    {
                        if (_needed > _server.Options.MaxPendingBytes)
                        {
                            protocolError = $"request larger than the pending-bytes limit ({_server.Options.MaxPendingBytes} bytes)";
                        }

                        break;
                    }

                    if (status == ParseStatus.Malformed)
                    {
                        protocolError = error!;
                        break;
                    }

                    _needed = 0;
                    if (_context.Request.Count > 0)
                    {
                        _commands++;
                        if (rented is null && SetBatch.Accepts(_context))
                        {
                            // Held back (its bytes stay in the read buffer) to be written with the SETs after it.
                            _batch.Add(_context, arrival, events);
                            if (_batch.IsFull)
                            {
                                await RunBatch().ConfigureAwait(false);
                            }
                        }
                        else
                        {
                            // The SETs held back answer first: replies go out in request order.
                            await RunBatch().ConfigureAwait(false);
                            ValueTask run = CommandDispatcher.Execute(_context, arrival);
                            if (run.IsCompletedSuccessfully)
                            {
                                run.GetAwaiter().GetResult();
                            }
                            else
                            {
                                await run.ConfigureAwait(false);
                            }
                        }
                    }

                    buffer = buffer.Slice(consumed);
                }
                finally
                {
                    if (rented is not null)
                    {
                        ArrayPool<byte>.Shared.Return(rented);
                    }
                }

                if (_context.CloseAfterReply)
                {
                    break;
                }

                if (_output.UnflushedBytes >= FlushThreshold)
                {
                    _context.RecordPending();
                    await _output.FlushAsync().ConfigureAwait(false);
                }
            }

            // Before the buffer their keys and values live in is advanced.
            await RunBatch().ConfigureAwait(false);
            if (protocolError is null && !_context.CloseAfterReply && buffer.Length > _server.Options.MaxPendingBytes)
            {
                protocolError = $"request larger than the pending-bytes limit ({_server.Options.MaxPendingBytes} bytes)";
            }

            if (protocolError is not null)
            {
                ProtocolError(protocolError);
            }

            _input.AdvanceTo(buffer.Start, buffer.End);
            _context.RecordPending();
            FlushResult flush = await _output.FlushAsync().ConfigureAwait(false);
            Touch();
            if (protocolError is not null || _context.CloseAfterReply || _stopping || result.IsCompleted || flush.IsCompleted)
            {
                return;
            }
        }
    }

    private ValueTask RunBatch()
    {
        ValueTask run = _batch.Run(_context);
        if (run.IsCompletedSuccessfully)
        {
            run.GetAwaiter().GetResult();
            return default;
        }

        return run;
    }

    /// <summary>
    /// Parses from the first segment when the command lies in it (the common case: no copy); a
    /// command straddling segments is copied once into a pooled array and parsed there.
    /// </summary>
    private ParseStatus Parse(in ReadOnlySequence<byte> buffer, out int consumed, out string? error, ref byte[]? rented)
    {
        RespRequest request = _context.Request;
        ReadOnlyMemory<byte> first = buffer.First;
        request.Reset(first);
        ParseStatus status = RespParser.TryParse(first.Span, request, _limits, out consumed, out _needed, out error);
        if (status != ParseStatus.Incomplete || buffer.IsSingleSegment || _needed > buffer.Length)
        {
            return status;
        }

        int length = (int)Math.Min(buffer.Length, _server.Options.MaxPendingBytes + 1L);
        rented = ArrayPool<byte>.Shared.Rent(length);
        buffer.Slice(0, length).CopyTo(rented);
        request.Reset(rented.AsMemory(0, length));
        return RespParser.TryParse(rented.AsSpan(0, length), request, _limits, out consumed, out _needed, out error);
    }

    private void ProtocolError(string reason)
    {
        Interlocked.Increment(ref _server.Stats.ProtocolErrors);
        if (_server.ConnectionEvents())
        {
            ServerEventSource.Log.ProtocolError(Id, reason);
        }

        RespWriter.WriteError(_output, "ERR Protocol error: " + reason);
    }

    private void Touch() => Volatile.Write(ref _lastActivity, Environment.TickCount64);
}
