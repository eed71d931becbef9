namespace TailDb.Storage;

/// <summary>
/// The thread that keeps a segment rotation down to a handle swap: woken after every rotation, it
/// runs <see cref="SegmentWriter.PrepareInBackground"/> (the fsync of the segment just sealed, then
/// the next segment file, created ahead of need), which would otherwise run under the writer lock.
/// One per writable store, a thread of its own rather than the thread pool because each run blocks
/// in fsync for up to a device's worst fsync time, and at normal priority because a writer may be
/// waiting for what it does (a rotation whose spare is not ready makes it inline). A second one,
/// "TailDb prefill", runs <see cref="SegmentWriter"/>'s zero fill of the spare at SCHED_IDLE: no
/// writer ever waits for that thread, so it may be kept off the CPU as long as the cores are busy.
/// </summary>
internal sealed class SegmentPreparer : IDisposable
{
    private readonly object _gate = new();
    private readonly Action _work;
    private readonly CompactionPriority _priority;
    private readonly Thread _thread;
    private int _applied;
    private bool _requested;
    private bool _stopping;

    /// <param name="priority">What the thread lowers itself to before its first run (a writer must never wait for a lowered one).</param>
    public SegmentPreparer(Action work, string name = "TailDb segment preparer", CompactionPriority priority = CompactionPriority.Normal)
    {
        _work = work;
        _priority = priority;
        _thread = new Thread(Run) { IsBackground = true, Name = name };
        _thread.Start();
    }

    /// <summary>The priority the platform applied to the thread (Normal until the thread has started).</summary>
    public CompactionPriority Applied => (CompactionPriority)Volatile.Read(ref _applied);

    /// <summary>Asks for one more run (runs asked for while one is going collapse into one). A monitor pulse: callable under the writer lock.</summary>
    public void Wake()
    {
        lock (_gate)
        {
            _requested = true;
            Monitor.Pulse(_gate);
        }
    }

    private void Run()
    {
        Volatile.Write(ref _applied, (int)UpkeepThread.LowerCurrentThread(_priority));
        while (true)
        {
            lock (_gate)
            {
                while (!_requested && !_stopping)
                {
                    Monitor.Wait(_gate);
                }

                if (_stopping)
                {
                    return;
                }

                _requested = false;
            }

            _work();
        }
    }

    /// <summary>Stops the thread after the run in progress, if any, and waits for it.</summary>
    public void Dispose()
    {
        lock (_gate)
        {
            _stopping = true;
            Monitor.Pulse(_gate);
        }

        _thread.Join();
    }
}
