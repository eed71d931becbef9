using System.Text.Json;
using System.Text.Json.Serialization;

namespace TailDb.Analyzer.Causes;

/// <summary>What a cause's value counts: time covered, or events per request.</summary>
/// <remarks>Time comes first: reports list time causes before event causes.</remarks>
internal enum CauseUnit
{
    Milliseconds,
    Events,
}

/// <summary>Where a cause can touch a request.</summary>
internal enum CauseScope
{
    /// <summary>Stops every thread: counts for every request it overlaps.</summary>
    Process,

    /// <summary>Only on the request's own thread.</summary>
    Thread,

    /// <summary>Nested inside the request (its FileRead, Fsync).</summary>
    Request,
}

/// <summary>What a cause of a slow request is (public: <see cref="Findings.TraceFindings"/> returns it).</summary>
public enum CauseKind
{
    GcPause,
    RuntimeSuspension,

    /// <summary>The sample profiler's own suspensions: the measurement's cost, not the app's.</summary>
    SamplerSuspension,
    Contention,
    Jit,
    ThreadPoolStarvation,
    Exceptions,
    NestedActivity,
    Samples,

    /// <summary>CPU samples in EventSource/EventPipe code: the measurement's cost.</summary>
    TracingSamples,

    /// <summary>The request waited for earlier requests on its own thread to finish (open-loop queueing).</summary>
    EarlierRequests,

    /// <summary>The store's compaction or cache eviction was running (TailDb's upkeep events).</summary>
    StoreUpkeep,

    /// <summary>
    /// A sampler tick waited far longer than usual for a thread to reach a safe point (a thread in
    /// non-interruptible work, or one the OS did not run): every thread stalled, but only because the
    /// sampler suspended them. The measurement's cost, amplified by the app; never the verdict.
    /// </summary>
    SafePointWait,

    /// <summary>
    /// The request's thread was runnable but not on a CPU (preempted, or woken and not yet run), by
    /// the scheduler's events: the machine's cause, naming who held the CPUs.
    /// </summary>
    CpuWait,

    /// <summary>The request's thread was off the CPU by its own doing or the kernel's (asleep on a wait, lock or timer; in disk I/O), by the scheduler's events.</summary>
    OffCpu,

    /// <summary>Major page faults (a page read from disk) on the request's thread, counted by the kernel.</summary>
    MajorFaults,

    /// <summary>
    /// The request's thread left the CPU inside a page fault and slept (reclaim, a page read in)
    /// until it ran again: the fault's time, as a thread-time view charges time off the CPU to the
    /// stack the thread left it with.
    /// </summary>
    OffCpuInFault,

    /// <summary>
    /// The request's thread was preempted inside a page fault and waited for a CPU: the fault's time
    /// (as <see cref="OffCpuInFault"/>), and the machine's too, so the verdict counts it as waiting for a CPU.
    /// </summary>
    CpuWaitInFault,

    /// <summary>
    /// The request came due while its thread was still asleep between requests (the open loop's
    /// pacing wait woke late), by the scheduler's events: the load generator's or the machine's time,
    /// in the queue part only (<see cref="LateWakeCause"/>).
    /// </summary>
    LateWake,

    /// <summary>
    /// The request's thread waited for a CPU the recording's own threads held (perf, the EventPipe
    /// threads; <see cref="Scheduling.InstrumentThreads"/>): the measurement's cost, not the machine's.
    /// </summary>
    RecordingCpuWait,
}

/// <summary>
/// The one cause several report lines are parts of. A line is split by how its time was seen (a
/// page fault's kernel samples on the CPU, its time preempted or asleep mid-fault) or by an attribute
/// (a GC's generation), not by a different reason: a request held 17 ms faulting and 52 ms preempted
/// mid-fault was held 69 ms by page faults, and a slow request's cause is ranked by that whole.
/// Waits for a CPU are not one group: each holder is a different reason (a hog, a build, the load's
/// own threads).
/// </summary>
internal enum CauseGroup
{
    /// <summary>A line of its own.</summary>
    None,
    GcPauses,
    PageFaults,
}

/// <summary>Which part of a request's response time a measurement covers.</summary>
internal enum RequestPart
{
    /// <summary>Arrival to Start: waiting to be served.</summary>
    Queue,

    /// <summary>Start to Stop: being served.</summary>
    Service,
}

/// <summary>How the reports spell units and scopes (the JSON's "ms"/"events", "process"/"thread"/"request").</summary>
internal static class CauseSpelling
{
    public static string Symbol(this CauseUnit unit) => unit == CauseUnit.Milliseconds ? "ms" : "events";

    public static string Symbol(this CauseScope scope) => scope switch
    {
        CauseScope.Process => "process",
        CauseScope.Thread => "thread",
        _ => "request",
    };
}

/// <summary>Writes a <see cref="CauseUnit"/> as its symbol ("ms", "events"), the report's documented JSON shape.</summary>
internal sealed class CauseUnitJsonConverter : JsonConverter<CauseUnit>
{
    public override CauseUnit Read(ref Utf8JsonReader reader, Type typeToConvert, JsonSerializerOptions options) =>
        reader.GetString() == "ms" ? CauseUnit.Milliseconds : CauseUnit.Events;

    public override void Write(Utf8JsonWriter writer, CauseUnit value, JsonSerializerOptions options) => writer.WriteStringValue(value.Symbol());
}
