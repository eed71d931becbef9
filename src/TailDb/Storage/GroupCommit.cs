using TailDb.Diagnostics;

namespace TailDb.Storage;

/// <summary>
/// Group commit for <see cref="Durability.Fsync"/>: a writer whose record is not yet durable either
/// waits for the fsync in flight or, if none is, becomes the leader and fsyncs everything appended
/// so far, which makes every writer waiting behind it durable with one fsync. The leader's
/// FsyncStart/Stop therefore nest inside that writer's Put activity and carry the batch size.
/// </summary>
/// <param name="resumeOn">
/// Null: an async leader fsyncs on a thread-pool thread and each async waiter resumes on the pool
/// by itself. Otherwise an async leader hands its fsync to this store's flusher thread, and all
/// async waiters (the leader too) resume one after another in a single task queued to this
/// scheduler: no thread-pool work per fsync at all. Measured before it, SET -P 16 with fsync on
/// the server: 53% of its CPU samples were thread-pool workers, woken one per connection per fsync
/// and spinning for more (docs/server.md, "Fsync SETs resume on the socket thread").
/// </param>
internal sealed class GroupCommit(SegmentWriter writer, StoreFault fault, TaskScheduler? resumeOn = null) : IDisposable
{
    // A Monitor (not System.Threading.Lock): sync waiters and the flusher need Monitor.Wait/PulseAll.
    private readonly object _gate = new();
    private long _durable;
    private bool _flushing;
    private TaskCompletionSource? _flushDone;
    private List<TaskCompletionSource>? _flushWaiters;

    // The flusher thread (with a scheduler only), and the fsync an async leader asked it for.
    private Thread? _flusher;
    private bool _flushAsked;
    private Guid _askedBy;
    private bool _disposed;

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
            bool leader = false;
            lock (_gate)
            {
                fault.ThrowIfFaulted();
                if (_durable >= sequence)
                {
                    return;
                }

                if (_flushing)
                {
                    inFlight = FlushDoneLocked();
                }
                else if (resumeOn is null)
                {
                    _flushing = true;
                    leader = true;
                }
                else
                {
                    // The flusher fsyncs; this writer waits for it with the others and resumes with them.
                    _flushing = true;
                    AskFlusherLocked(request);
                    inFlight = FlushDoneLocked();
                }
            }

            if (leader)
            {
                // There is no asynchronous fsync in .NET, so a leader blocks a thread for it. Not the
                // caller's: that may be an event loop (the server runs commands on its epoll thread),
                // and every connection on it would wait out the fsync. Measured: with one epoll
                // thread, fsync SETs fell from ~18k to 3.3k req/s at -P 1 (docs/server.md).
                await Task.Yield();
                Flush(request);
            }

            if (inFlight is not null)
            {
                await inFlight.WaitAsync(cancellationToken).ConfigureAwait(false);
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
        List<TaskCompletionSource>? waiters;
        lock (_gate)
        {
            if (!failed && target > _durable)
            {
                _durable = target;
            }

            _flushing = false;
            done = _flushDone;
            _flushDone = null;
            waiters = _flushWaiters;
            _flushWaiters = null;
            Monitor.PulseAll(_gate);
        }

        done?.TrySetResult();
        if (waiters is not null)
        {
            // One task for all: each waiter's continuation runs inside its TrySetResult, on the
            // scheduler's thread, in turn. HideScheduler: with the scheduler as TaskScheduler.Current
            // the runtime would not inline an await's continuation there but queue it to the pool.
            try
            {
                _ = Task.Factory.StartNew(static w => ResumeAll((List<TaskCompletionSource>)w!), waiters, CancellationToken.None, TaskCreationOptions.DenyChildAttach | TaskCreationOptions.HideScheduler, resumeOn!);
            }
            catch (TaskSchedulerException)
            {
                // A scheduler that refuses the task (shut down before this store) must not leave its writers waiting.
                ThreadPool.UnsafeQueueUserWorkItem(static w => ResumeAll(w), waiters, preferLocal: false);
            }
        }
    }

    private static void ResumeAll(List<TaskCompletionSource> waiters)
    {
        foreach (TaskCompletionSource waiter in waiters)
        {
            waiter.TrySetResult();
        }
    }

    public void Dispose()
    {
        lock (_gate)
        {
            _disposed = true;
            Monitor.PulseAll(_gate);
        }
    }

    private void AskFlusherLocked(Guid request)
    {
        if (_disposed)
        {
            // The flusher has ended (or is about to): a writer that appended before the store closed
            // still gets its fsync, or the store's fault, rather than a wait with no end.
            ThreadPool.UnsafeQueueUserWorkItem(static s => s.Commit.Flush(s.Request), (Commit: this, Request: request), preferLocal: false);
            return;
        }

        _flushAsked = true;
        _askedBy = request;
        if (_flusher is null)
        {
            _flusher = new Thread(FlusherLoop) { IsBackground = true, Name = "TailDb group commit" };
            _flusher.Start();
        }

        Monitor.PulseAll(_gate);
    }

    /// <summary>Blocks in Monitor.Wait between fsyncs: a thread that never spins for work, unlike a pool worker.</summary>
    private void FlusherLoop()
    {
        while (true)
        {
            Guid request;
            lock (_gate)
            {
                while (!_flushAsked && !_disposed)
                {
                    Monitor.Wait(_gate);
                }

                if (!_flushAsked)
                {
                    return;
                }

                _flushAsked = false;
                request = _askedBy;
            }

            Flush(request);
        }
    }

    /// <summary>
    /// The task that completes when the fsync in flight has ended (under <see cref="_gate"/>). With
    /// a scheduler, one for each waiter: a Task inlines only the first of several awaits' continuations
    /// and queues every other one to the thread pool (Task.RunContinuations), which is what the
    /// scheduler is there to avoid.
    /// </summary>
    private Task FlushDoneLocked()
    {
        if (resumeOn is null)
        {
            _flushDone ??= new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            return _flushDone.Task;
        }

        var waiter = new TaskCompletionSource();
        (_flushWaiters ??= []).Add(waiter);
        return waiter.Task;
    }
}
