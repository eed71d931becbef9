namespace TailDb.Benchmarks.Fixtures;

/// <summary>
/// N dedicated threads that run one slice of an invocation each and are released together, so
/// a multi-writer benchmark measures the writes, not thread creation or the thread pool's
/// injection. One writer runs inline on the benchmark thread. Allocation-free per run.
/// </summary>
public sealed class WriterGang : IDisposable
{
    private readonly Thread[] _threads;
    private readonly Barrier _start;
    private readonly Barrier _done;
    private Action<int>? _work;
    private volatile bool _stopping;

    public WriterGang(int writers)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(writers, 1);
        Writers = writers;
        _start = new Barrier(writers + 1);
        _done = new Barrier(writers + 1);
        _threads = new Thread[writers];
        if (writers == 1)
        {
            return;
        }

        for (var i = 0; i < writers; i++)
        {
            var index = i;
            _threads[i] = new Thread(() => Loop(index)) { IsBackground = true, Name = $"writer-{index}" };
            _threads[i].Start();
        }
    }

    public int Writers { get; }

    /// <summary>Runs <paramref name="work"/>(writerIndex) on every writer and returns when all finished.</summary>
    public void Run(Action<int> work)
    {
        if (Writers == 1)
        {
            work(0);
            return;
        }

        _work = work;
        _start.SignalAndWait();
        _done.SignalAndWait();
    }

    private void Loop(int index)
    {
        while (true)
        {
            _start.SignalAndWait();
            if (_stopping)
            {
                return;
            }

            _work!(index);
            _done.SignalAndWait();
        }
    }

    public void Dispose()
    {
        if (Writers > 1)
        {
            _stopping = true;
            _start.SignalAndWait();
            foreach (var thread in _threads)
            {
                thread.Join();
            }
        }

        _start.Dispose();
        _done.Dispose();
    }
}
