namespace TailDb.Cli;

/// <summary>
/// A child's way to follow its parent: the kernel closes a dead parent's end of the stdin pipe,
/// whatever killed it, so end of input is the one signal a SIGKILLed parent still sends (and a live
/// parent closes it on purpose to say "stop").
/// </summary>
public static class StdinClosed
{
    /// <summary>Runs <paramref name="then"/> once stdin reaches its end, on a background thread named <paramref name="threadName"/>.</summary>
    public static void Then(Action then, string threadName)
    {
        ArgumentNullException.ThrowIfNull(then);
        var watch = new Thread(() =>
        {
            using Stream input = Console.OpenStandardInput();
            var buffer = new byte[64];
            while (input.Read(buffer) > 0)
            {
            }

            then();
        })
        {
            IsBackground = true,
            Name = threadName,
        };
        watch.Start();
    }
}
