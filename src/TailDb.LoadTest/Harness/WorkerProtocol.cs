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
}
