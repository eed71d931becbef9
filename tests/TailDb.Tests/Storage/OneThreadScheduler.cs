namespace TailDb.Tests.Storage;

/// <summary>Runs its tasks on one thread of its own, as an event loop would; counts what it is given.</summary>
internal sealed class OneThreadScheduler : TaskScheduler, IDisposable
{
    private readonly System.Collections.Concurrent.BlockingCollection<Task> _tasks = [];
    private readonly Thread _thread;
    private int _queued;

    public OneThreadScheduler()
    {
        _thread = new Thread(() =>
        {
            foreach (Task task in _tasks.GetConsumingEnumerable())
            {
                TryExecuteTask(task);
            }
        }) { IsBackground = true };
        _thread.Start();
    }

    public int ThreadId => _thread.ManagedThreadId;

    public int Queued => Volatile.Read(ref _queued);

    public void Dispose() => _tasks.CompleteAdding();

    protected override void QueueTask(Task task)
    {
        Interlocked.Increment(ref _queued);
        _tasks.Add(task);
    }

    protected override bool TryExecuteTaskInline(Task task, bool taskWasPreviouslyQueued) => false;

    protected override IEnumerable<Task> GetScheduledTasks() => _tasks.ToArray();
}
