using TailDb.Diagnostics;

namespace TailDb.Storage;

/// <summary>
/// Group commit for <see cref="Durability.Fsync"/>: a writer whose record is not yet durable either
/// waits for the fsync in flight or, if none is, becomes the leader and fsyncs everything appended
/// so far, which makes every writer waiting behind it durable with one fsync. The leader's
/// FsyncStart/Stop therefore nest inside that writer's Put activity and carry the batch size.
/// </summary>
internal sealed class GroupCommit(SegmentWriter writer, StoreFault fault)
{
    // A Monitor (not System.Threading.Lock): sync waiters need Monitor.Wait/PulseAll.
    private readonly object _gate = new();
    private long _durable;
    private bool _flushing;
    private TaskCompletionSource? _flushDone;

    public void WaitDurable(long sequence, Guid request)
    {
        while (true)
        {
            lock (_gate)
            {
                while (true)
                {
                    fault.ThrowIfFaulted();
                    if (_durable >= sequence)
                    {
                        return;
                    }

                    if (!_flushing)
                    {
                        _flushing = true;
                        break;
                    }

                    Monitor.Wait(_gate);
                }
            }

            Flush(request);
        }
    }

    public async ValueTask WaitDurableAsync(long sequence, Guid request, CancellationToken cancellationToken)
    {
        while (true)
        {
            Task? inFlight = null;
            lock (_gate)
            {
                fault.ThrowIfFaulted();
                if (_durable >= sequence)
                {
                    return;
                }

                if (_flushing)
                {
                    _flushDone ??= new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
                    inFlight = _flushDone.Task;
                }
                else
                {
                    _flushing = true;
                }
            }

            if (inFlight is not null)
            {
                await inFlight.WaitAsync(cancellationToken).ConfigureAwait(false);
            }
            else
            {
                // There is no asynchronous fsync in .NET, so a leader blocks a thread for it. Not the
                // caller's: that may be an event loop (the server runs commands on its epoll thread),
                // and every connection on it would wait out the fsync. Measured: with one epoll
                // thread, fsync SETs fell from ~18k to 3.3k req/s at -P 1 (docs/server.md).
                await Task.Yield();
                Flush(request);
            }
        }
    }

    /// <summary>Fsyncs everything appended so far; its events nest in <paramref name="request"/> (the leader's).</summary>
    private void Flush(Guid request)
    {
        (Segment? sealing, Segment active, long target) = writer.FlushTarget();
        long durable;
        lock (_gate)
        {
            durable = _durable;
        }

        int batch = (int)Math.Min(int.MaxValue, target - durable);
        var log = TailDbEventSource.Log;
        Guid fsync = log.StorageEnabled() ? log.FsyncStart(request, batch) : Guid.Empty;

        bool failed = true;
        try
        {
            // The records before the last rotation, and its seal, are durable before any after it.
            if (sealing is not null)
            {
                writer.CompleteSeal(sealing);
            }

            writer.MakeDurable(active);
            failed = false;
        }
        catch (TailDbFaultedException)
        {
            // The writer faulted the store, with the cause; the waiters see it when woken below.
        }
#pragma warning disable CA1031 // anything else thrown here faults the store too: a leader must always wake its waiters
        catch (Exception e)
#pragma warning restore CA1031
        {
            fault.Fault($"group commit of '{active.File.Path}'", e);
        }
        finally
        {
            if (fsync != Guid.Empty)
            {
                log.WriteStop(fsync, TailDbEventSource.EventIds.FsyncStop, batch);
            }
        }

        TaskCompletionSource? done;
        lock (_gate)
        {
            if (!failed && target > _durable)
            {
                _durable = target;
            }

            _flushing = false;
            done = _flushDone;
            _flushDone = null;
            Monitor.PulseAll(_gate);
        }

        done?.TrySetResult();
    }
}
