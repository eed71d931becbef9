using System.Collections.Concurrent;
using System.Net.Sockets;

namespace TailDb.Server.Hosting;

/// <summary>
/// A <see cref="TaskScheduler"/> whose tasks run on a socket thread: they are the continuation of
/// a read on one end of a Unix socket pair, and queueing a task writes a byte into the other end
/// (an event loop's doorbell, as an eventfd is for a C server). With inline socket completions
/// (the server's default) that read completes on an epoll thread, where the connections run; with
/// thread-pool completions, on one pool thread. The store's group commit resumes its fsync waiters
/// here (<see cref="TailDbOptions.DurableWaitersScheduler"/>): one byte and one wake-up per fsync,
/// where each waiting connection used to wake a thread-pool worker of its own.
/// </summary>
public sealed class SocketThreadScheduler : TaskScheduler, IDisposable
{
    private readonly ConcurrentQueue<Task> _tasks = new();
    private readonly Socket _bell;
    private readonly Socket _door;
    private readonly byte[] _ring = [1];

    // 1 from a ring until the loop has taken it: tasks queued meanwhile need no byte of their own.
    private int _rung;
    private volatile bool _disposed;
    private long _rings;

    private SocketThreadScheduler(Socket bell, Socket door)
    {
        _bell = bell;
        _door = door;
        _ = Task.Run(RunAsync);
    }

    /// <summary>Tasks run so far (the tests' check that they ran here, not inline or on the pool).</summary>
    public long Executed { get; private set; }

    /// <summary>Bytes written to the doorbell so far: at most one per batch of tasks queued while it rang.</summary>
    public long Rings => Volatile.Read(ref _rings);

    public override int MaximumConcurrencyLevel => 1;

    public static SocketThreadScheduler Create()
    {
        // .NET has no socketpair: a Unix socket under an abstract name on Linux (no file to clean
        // up), loopback TCP elsewhere.
        bool unix = OperatingSystem.IsLinux();
        Socket NewSocket() => unix
            ? new Socket(AddressFamily.Unix, SocketType.Stream, ProtocolType.Unspecified)
            : new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };

        using Socket listener = NewSocket();
        listener.Bind(unix
            ? new UnixDomainSocketEndPoint("\0taildb-doorbell-" + Guid.NewGuid().ToString("N"))
            : new System.Net.IPEndPoint(System.Net.IPAddress.Loopback, 0));
        listener.Listen(1);
        Socket bell = NewSocket();
        try
        {
            bell.Connect(listener.LocalEndPoint!);
            Socket door = listener.Accept();
            return new SocketThreadScheduler(bell, door);
        }
        catch
        {
            bell.Dispose();
            throw;
        }
    }

    /// <summary>
    /// Closes the doorbell without waiting for its loop: Dispose may run inside that loop (a
    /// server's shutdown continues on whatever thread ended its last connection, which can be a
    /// group commit's resume here), and waiting for itself hung the tests. Tasks still queued, and
    /// any queued from now on, run on the thread pool.
    /// </summary>
    public void Dispose()
    {
        _disposed = true;

        // Against QueueTask's enqueue-then-read: one of the two sees the other, so no task is left behind.
        Interlocked.MemoryBarrier();
        _bell.Dispose();
        _door.Dispose();
        if (!_tasks.IsEmpty)
        {
            DrainOnPool();
        }
    }

    protected override void QueueTask(Task task)
    {
        _tasks.Enqueue(task);
        Interlocked.MemoryBarrier();
        if (_disposed)
        {
            DrainOnPool();
            return;
        }

        if (Interlocked.Exchange(ref _rung, 1) == 0)
        {
            Interlocked.Increment(ref _rings);
            try
            {
                _bell.Send(_ring);
            }
            catch (Exception e) when (e is SocketException or ObjectDisposedException)
            {
                // Disposed meanwhile: run it on the pool instead.
                DrainOnPool();
            }
        }
    }

    // Only from the doorbell's loop (or after it has ended): a task never runs inline on a queuing thread.
    protected override bool TryExecuteTaskInline(Task task, bool taskWasPreviouslyQueued) => false;

    protected override IEnumerable<Task> GetScheduledTasks() => _tasks.ToArray();

    private async Task RunAsync()
    {
        var buffer = new byte[64];
        while (true)
        {
            int read;
            try
            {
                read = await _door.ReceiveAsync(buffer.AsMemory(), SocketFlags.None).ConfigureAwait(false);
            }
            catch (Exception e) when (e is SocketException or ObjectDisposedException)
            {
                return;
            }

            if (read == 0)
            {
                return;
            }

            // Cleared before the drain: a task queued after this point rings again, so none is left behind.
            Volatile.Write(ref _rung, 0);
            Interlocked.MemoryBarrier();
            Drain();
        }
    }

    /// <summary>The doorbell is gone (or going): what is queued runs on the thread pool, so no waiter hangs.</summary>
    private void DrainOnPool() => ThreadPool.UnsafeQueueUserWorkItem(static s => s.Drain(), this, preferLocal: false);

    private void Drain()
    {
        lock (_tasks)
        {
            while (_tasks.TryDequeue(out Task? task))
            {
                Executed++;
                TryExecuteTask(task);
            }
        }
    }
}
