using TailDb.Server.Hosting;

namespace TailDb.Server.Tests.Hosting;

public sealed class SocketThreadSchedulerTests
{
    [Fact]
    public void A_task_runs_where_the_doorbell_is_read_never_inline_on_the_thread_that_queued_it()
    {
        using var scheduler = SocketThreadScheduler.Create();
        int queuer = 0;
        int ranOn = 0;

        // A thread of its own (not a pool thread the doorbell's read could also complete on) queues and waits.
        var thread = new Thread(() =>
        {
            queuer = Environment.CurrentManagedThreadId;
            Task<int> task = Task.Factory.StartNew(() => Environment.CurrentManagedThreadId, CancellationToken.None, TaskCreationOptions.None, scheduler);
            ranOn = task.Wait(TimeSpan.FromSeconds(30)) ? task.Result : -1;
        });
        thread.Start();
        thread.Join();

        Assert.NotEqual(-1, ranOn);
        Assert.NotEqual(queuer, ranOn);
        Assert.Equal(1, scheduler.Executed);
        Assert.Equal(1, scheduler.Rings);
    }

    [Fact]
    public async Task Tasks_queued_while_the_bell_is_ringing_share_one_ring()
    {
        using var scheduler = SocketThreadScheduler.Create();
        using var gate = new ManualResetEventSlim();
        Task blocker = Task.Factory.StartNew(() => gate.Wait(TimeSpan.FromSeconds(30)), CancellationToken.None, TaskCreationOptions.None, scheduler);
        while (scheduler.Executed == 0 && !blocker.IsCompleted)
        {
            await Task.Delay(1);
        }

        // The first ring was taken before its drain began; the drain is held, so the next task rings once more and the rest ride on it.
        Task[] queued = [.. Enumerable.Range(0, 100).Select(_ => Task.Factory.StartNew(() => { }, CancellationToken.None, TaskCreationOptions.None, scheduler))];
        gate.Set();
        await Task.WhenAll(queued).WaitAsync(TimeSpan.FromSeconds(30));

        Assert.Equal(101, scheduler.Executed);
        Assert.Equal(2, scheduler.Rings);
    }

    [Fact]
    public async Task Dispose_called_from_one_of_its_own_tasks_returns_and_later_tasks_still_run()
    {
        // A server's shutdown can continue inside a group commit's resume, on the doorbell's own loop.
        var scheduler = SocketThreadScheduler.Create();
        Task disposing = Task.Factory.StartNew(scheduler.Dispose, CancellationToken.None, TaskCreationOptions.None, scheduler);
        await disposing.WaitAsync(TimeSpan.FromSeconds(30));

        bool ran = await Task.Factory.StartNew(() => true, CancellationToken.None, TaskCreationOptions.None, scheduler).WaitAsync(TimeSpan.FromSeconds(30));
        Assert.True(ran);
    }

    [Fact]
    public async Task A_task_queued_after_dispose_still_runs()
    {
        var scheduler = SocketThreadScheduler.Create();
        scheduler.Dispose();

        bool ran = await Task.Factory.StartNew(() => true, CancellationToken.None, TaskCreationOptions.None, scheduler).WaitAsync(TimeSpan.FromSeconds(30));

        Assert.True(ran);
    }
}
