namespace TailDb;

/// <summary>
/// The CPU priority of compaction's copying (reading the inputs, writing the output and its hint
/// file, syncing them). Publishing the result (the short writer-lock holds) always runs at the
/// caller's priority: a starved thread holding a lock that requests wait on would be a priority
/// inversion. Where the platform cannot apply the priority, compaction runs at normal priority and
/// <see cref="CompactionResult.Priority"/> says so.
/// </summary>
public enum CompactionPriority
{
    /// <summary>The copy runs on the calling thread, at its priority.</summary>
    Normal,

    /// <summary>
    /// The copy runs on a thread of its own at the lowest timesharing priority (Linux: nice 19 on
    /// that thread, ~1.5% of a nice-0 thread's CPU share when both want the core). On a machine
    /// whose cores are busy with other work, compaction then proceeds slowly: the trade it makes.
    /// </summary>
    Low,

    /// <summary>
    /// The copy runs on a thread of its own that gets a core only when nothing else wants it (Linux:
    /// SCHED_IDLE). Under sustained full load compaction can then take arbitrarily long.
    /// </summary>
    Idle,
}
