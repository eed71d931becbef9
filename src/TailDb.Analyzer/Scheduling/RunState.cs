namespace TailDb.Analyzer.Scheduling;

/// <summary>Where a thread was, as the scheduler saw it.</summary>
public enum RunState : byte
{
    /// <summary>On a CPU.</summary>
    Running,

    /// <summary>Ready to run but not on a CPU: preempted, or woken and not yet picked (waiting for a CPU).</summary>
    Runnable,

    /// <summary>Asleep by its own choice (interruptible: a wait, a lock, a timer, a socket read).</summary>
    Sleeping,

    /// <summary>Uninterruptible: the kernel holds it, mostly disk I/O or a page being read in.</summary>
    DiskWait,

    /// <summary>
    /// Not known: the stretch between the last event on its CPU that named another thread and the
    /// first event that named this one running, whose switch in was never recorded
    /// (<see cref="SchedulerModelBuilder.Current"/>). No cause is charged with it.
    /// </summary>
    Unrecorded,
}

/// <summary>
/// One stretch of a thread's time in one state. For <see cref="RunState.Runnable"/>,
/// <see cref="Holder"/> is the thread that ran on the CPU it was queued on (who it waited behind; a
/// wait behind several is several spans); for a sleep, <see cref="Holder"/> is the thread that woke
/// it (0: an interrupt or unknown).
/// </summary>
public readonly record struct ThreadStateSpan(double StartMSec, double StopMSec, RunState State, int Holder);

/// <summary>A thread of the machine, as the scheduler events name it.</summary>
public readonly record struct ThreadIdentity(int ProcessId, int ThreadId, string Command);
