using System.Runtime.ExceptionServices;
using System.Runtime.InteropServices;

namespace TailDb.Storage;

/// <summary>
/// Runs a piece of upkeep on a thread of its own at a lowered CPU priority and waits for it. A
/// fresh thread each time, because an unprivileged Linux thread can lower its priority but never
/// raise it back; the thread ends with the work.
/// <para>
/// .NET's <see cref="Thread.Priority"/> does not do this on Linux (the runtime leaves a
/// SCHED_OTHER thread's nice value alone; <c>UpkeepThreadTests</c> checks it), so the thread sets
/// its own nice value with setpriority on its kernel thread id, or its policy with
/// sched_setscheduler, then reads back what the kernel applied.
/// </para>
/// </summary>
internal static partial class UpkeepThread
{
    private const int PrioProcess = 0;   // with a thread id as "who", Linux applies it to that thread only
    private const int LowestNice = 19;
    private const int SchedIdle = 5;

    /// <summary>Runs <paramref name="work"/> at <paramref name="priority"/> (on the caller for Normal) and returns its result.</summary>
    public static T Run<T>(CompactionPriority priority, string name, Func<T> work, out CompactionPriority applied)
    {
        if (priority == CompactionPriority.Normal)
        {
            applied = CompactionPriority.Normal;
            return work();
        }

        T result = default!;
        ExceptionDispatchInfo? failure = null;
        CompactionPriority got = CompactionPriority.Normal;
        var thread = new Thread(() =>
        {
            got = LowerCurrentThread(priority);
            try
            {
                result = work();
            }
#pragma warning disable CA1031 // rethrown on the caller's thread below, whatever its type
            catch (Exception e)
#pragma warning restore CA1031
            {
                failure = ExceptionDispatchInfo.Capture(e);
            }
        })
        {
            IsBackground = true,
            Name = name,
        };
        thread.Start();
        thread.Join();
        failure?.Throw();
        applied = got;
        return result;
    }

    /// <summary>Lowers the calling thread to <paramref name="priority"/> and returns what the platform actually applied.</summary>
    internal static CompactionPriority LowerCurrentThread(CompactionPriority priority)
    {
        if (priority == CompactionPriority.Normal)
        {
            return CompactionPriority.Normal;
        }

        if (!OperatingSystem.IsLinux())
        {
            // Windows applies ThreadPriority; other platforms may not, and we cannot read it back portably.
            Thread.CurrentThread.Priority = ThreadPriority.Lowest;
            return OperatingSystem.IsWindows() ? CompactionPriority.Low : CompactionPriority.Normal;
        }

        int tid = GetTid();
        if (priority == CompactionPriority.Idle)
        {
            int parameter = 0; // struct sched_param { int sched_priority; } must be 0 for SCHED_IDLE
            if (SchedSetScheduler(tid, SchedIdle, ref parameter) == 0 && SchedGetScheduler(tid) == SchedIdle)
            {
                return CompactionPriority.Idle;
            }
        }

        // Raising one's own nice value needs no privilege.
        _ = SetPriority(PrioProcess, tid, LowestNice);
        return CurrentNice() == LowestNice ? CompactionPriority.Low : CompactionPriority.Normal;
    }

    /// <summary>The calling thread's nice value (Linux), for the tests and the report.</summary>
    internal static int CurrentNice() => GetPriority(PrioProcess, GetTid());

    /// <summary>The calling thread's scheduling policy (Linux; 0 SCHED_OTHER, 5 SCHED_IDLE).</summary>
    internal static int CurrentPolicy() => SchedGetScheduler(GetTid());

    [LibraryImport("libc", EntryPoint = "gettid")]
    private static partial int GetTid();

    [LibraryImport("libc", EntryPoint = "setpriority", SetLastError = true)]
    private static partial int SetPriority(int which, int who, int priority);

    [LibraryImport("libc", EntryPoint = "getpriority", SetLastError = true)]
    private static partial int GetPriority(int which, int who);

    [LibraryImport("libc", EntryPoint = "sched_setscheduler", SetLastError = true)]
    private static partial int SchedSetScheduler(int pid, int policy, ref int parameter);

    [LibraryImport("libc", EntryPoint = "sched_getscheduler", SetLastError = true)]
    private static partial int SchedGetScheduler(int pid);
}
