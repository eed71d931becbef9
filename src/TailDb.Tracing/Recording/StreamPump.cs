namespace TailDb.Tracing.Recording;

/// <summary>
/// Copies a session's stream into its sink on a thread of its own. The recorder's host shares the
/// machine with the process it traces, so it must take as few of its CPU slices as it can: an async
/// copy hops through the socket engine's thread and a pool worker for every chunk the runtime writes,
/// where a blocking read wakes one thread once. It never naps to gather more per read: while the
/// socket is full the runtime's streaming thread waits on it, and the session's buffers behind it
/// fill toward dropped events.
/// </summary>
internal static class StreamPump
{
    private const int BufferBytes = 1 << 20;

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
        }
    }
}
