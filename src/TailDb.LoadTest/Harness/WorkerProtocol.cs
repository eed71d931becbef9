using System.Text.Json;
using TailDb.Cli;

namespace TailDb.LoadTest.Harness;

/// <summary>
/// How harness and worker talk. Worker → harness: lines on stdout ("phase ..." as it goes, "progress ..." while measuring,
/// "done" once the result file is written). Harness → worker: closing stdin means "stop now"
/// before "done" and "exit" after it; so a harness that dies takes its worker with it.
/// The worker waits for that after "done" so a trace session can be stopped (with its rundown)
/// while the process is still alive.
/// </summary>
public static class WorkerProtocol
{
    public const string ProgressPrefix = "progress ";
    public const string PhasePrefix = "phase ";
    public const string Done = "done";
    public const string CommandName = "worker";

    /// <summary>The child's side of "stop now": cancels <paramref name="stop"/> when its stdin closes (its parent said stop, or is gone).</summary>
    public static void CancelWhenStdinCloses(CancellationTokenSource stop, string threadName)
    {
        ArgumentNullException.ThrowIfNull(stop);
        StdinClosed.Then(stop.Cancel, threadName);
    }

    /// <summary>
    /// The child's side of "done": the result file written whole (a rename, so the parent never reads
    /// half of it), "done" said, then alive until stdin closes (at most 2 minutes) so the parent can
    /// stop its trace session, with its rundown, while the process still runs.
    /// </summary>
    public static void Finish<T>(T result, string resultPath, TextWriter stdout, JsonSerializerOptions json, CancellationToken stop)
    {
        ArgumentNullException.ThrowIfNull(stdout);
        string temporary = resultPath + ".tmp";
        File.WriteAllText(temporary, JsonSerializer.Serialize(result, json));
        File.Move(temporary, resultPath, overwrite: true);
        stdout.WriteLine(Done);
        stdout.Flush();
        stop.WaitHandle.WaitOne(TimeSpan.FromMinutes(2));
    }
}
