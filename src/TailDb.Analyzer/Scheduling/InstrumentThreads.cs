using TailDb.Tracing.Recording;

namespace TailDb.Analyzer.Scheduling;

/// <summary>
/// The threads that are the recording itself, by the names the kernel gives them (15 characters at
/// most): perf; the traced runtime's own EventPipe thread, which exists only while a session runs
/// and writes the session's buffers out; and the recorder's thread that reads the session
/// (<see cref="EventPipeRecorder.ReaderThreadName"/>, in the load test's harness, <c>record</c> or <c>watch</c>).
/// A request's thread that waited for a CPU one of them held paid for the measurement, not for the
/// machine: untraced, none of them runs. Found in a watch of the server: a 0.85 ms command had waited
/// for a CPU the server's ".NET EventPipe" thread held, and the capture's verdict called it the machine's.
/// </summary>
public static class InstrumentThreads
{
    public static bool Is(ThreadIdentity thread, int tracedProcessId) =>
        thread.ProcessId == tracedProcessId
            ? thread.Command.StartsWith(".NET EventPipe", StringComparison.Ordinal)
            : thread.Command is "perf" || thread.Command == Reader;

    // The kernel keeps 15 characters of a thread's name.
    private static readonly string Reader = EventPipeRecorder.ReaderThreadName.Length > 15 ? EventPipeRecorder.ReaderThreadName[..15] : EventPipeRecorder.ReaderThreadName;
}
