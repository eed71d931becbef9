namespace TailDb.Tracing.Recording;

/// <summary>
/// Copies a session's stream into its sink on a thread of its own, in gulps. The recorder's host
/// shares the machine with the process it traces, so it must take as few of its CPU slices as it
/// can: an async copy hops through the socket engine's thread and a pool worker for every chunk the
/// runtime writes (found: the load test's own pool workers were the "thread that held the CPU" in a
/// traced nogc run's tail, 5,248 scheduler events in 4.5 s), where one thread that reads, writes and
/// then naps while the socket's buffer fills wakes about a hundred times a second.
/// </summary>
internal static class StreamPump
{
    private const int BufferBytes = 1 << 20;

    /// <summary>A read shorter than this means the stream is keeping up; the pump then naps.</summary>
    private const int GulpBytes = 64 << 10;

    /// <summary>
    /// Short enough for the socket's buffer (and the runtime's own buffers behind it) to hold what a
    /// busy session writes meanwhile (about 1 MiB a second for the load test's), long enough to gather it.
    /// </summary>
    private static readonly TimeSpan Nap = TimeSpan.FromMilliseconds(10);

    /// <summary>Completes when <paramref name="source"/> ends, faults with the read's or write's exception.</summary>
    public static Task Start(Stream source, Stream sink, string threadName)
    {
        var done = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var thread = new Thread(() =>
        {
            try
            {
                Pump(source, sink);
                done.SetResult();
            }
            catch (Exception e)
            {
                done.SetException(e);
            }
        })
        {
            IsBackground = true,
            Name = threadName,
        };
        thread.Start();
        return done.Task;
    }

    private static void Pump(Stream source, Stream sink)
    {
        var buffer = new byte[BufferBytes];
        int read;
        while ((read = source.Read(buffer, 0, buffer.Length)) > 0)
        {
            sink.Write(buffer, 0, read);
            if (read < GulpBytes)
            {
                Thread.Sleep(Nap);
            }
        }
    }
}
