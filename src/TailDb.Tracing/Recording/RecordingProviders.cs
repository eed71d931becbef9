using System.Diagnostics.Tracing;
using Microsoft.Diagnostics.NETCore.Client;

namespace TailDb.Tracing.Recording;

/// <summary>
/// The one provider list every TailDb recording uses (load test and `TailDb.Analyzer record`),
/// so a trace from either tool answers the same questions, and the one place each provider name
/// is spelled.
/// </summary>
public static class RecordingProviders
{
    public const string TailDb = TailDbEventContract.ProviderName;
    public const string Server = ServerEventContract.ProviderName;
    public const string Tpl = "System.Threading.Tasks.TplEventSource";
    public const string Runtime = "Microsoft-Windows-DotNETRuntime";
    public const string SampleProfiler = "Microsoft-DotNETCore-SampleProfiler";

    /// <summary>Written by the runtime at the end of a session (method names for code that ran before it); never enabled by name.</summary>
    public const string Rundown = "Microsoft-Windows-DotNETRuntimeRundown";

    /// <summary>TasksFlowActivityIds: without it EventSource Start events get no ActivityId.</summary>
    public const long TplTasksFlowActivityIds = 0x80;

    [Flags]
    public enum RuntimeKeywords : long
    {
        GC = 0x1,
        Loader = 0x8,
        Jit = 0x10,
        Contention = 0x4000,
        Exception = 0x8000,
        ThreadPool = 0x10000,
    }

    public const RuntimeKeywords DefaultRuntimeKeywords =
        RuntimeKeywords.GC | RuntimeKeywords.Loader | RuntimeKeywords.Jit |
        RuntimeKeywords.Contention | RuntimeKeywords.Exception | RuntimeKeywords.ThreadPool;

    /// <param name="samples">Adds the sample profiler. It suspends the runtime on every tick,
    /// which is itself a cause of latency the analyzer reports.</param>
    /// <param name="extraProviders">Further EventSources to enable fully (a user's own, ASP.NET Core's, ...).</param>
    /// <param name="activityIds">Whether TPL's task-flow activity ids are needed: the store, the load
    /// test and the server set their own (<see cref="ActivityIdsFor"/>), so their recordings leave
    /// TplEventSource off; other apps' sources (ASP.NET Core's Request) rely on it.</param>
    /// <param name="level">Which of TailDb's per-request events: the outermost request's only, or the store's as well.
    /// The store's upkeep (compaction, cache eviction) is in both.</param>
    /// <param name="namesFromPerf">perf samples the process and names its JIT code through the runtime's perf map: the
    /// runtime's method and loader events (MethodLoadVerbose for every method jitted, the bulk of a short trace) are then not
    /// needed, and JIT time shows as perf's samples in the JIT compiler. GC, suspension, contention, exception and thread-pool
    /// events stay: they are the causes the windows are measured against.</param>
    public static IReadOnlyList<EventPipeProvider> Create(
        bool samples, IEnumerable<string>? extraProviders = null, ActivityIdSource activityIds = ActivityIdSource.TaskFlow, bool namesFromPerf = false,
        RecordingLevel level = RecordingLevel.Store)
    {
        var providers = new List<EventPipeProvider>
        {
            level == RecordingLevel.Store
                ? new(TailDb, EventLevel.Verbose, -1)
                : new(TailDb, EventLevel.Verbose, TailDbEventContract.Keywords.Upkeep),
            // The load test's Request (with its arrival) and Phase events; nothing when the process has no such source.
            new(LoadTestEventContract.ProviderName, EventLevel.Verbose, -1),
            // Verbose is what makes the runtime emit MethodLoadVerbose (method names for JIT and stacks).
            namesFromPerf
                ? new(Runtime, EventLevel.Informational, (long)(DefaultRuntimeKeywords & ~(RuntimeKeywords.Loader | RuntimeKeywords.Jit)))
                : new(Runtime, EventLevel.Verbose, (long)DefaultRuntimeKeywords),
        };
        if (activityIds == ActivityIdSource.TaskFlow)
        {
            providers.Add(new EventPipeProvider(Tpl, EventLevel.Informational, TplTasksFlowActivityIds));
        }

        if (samples)
        {
            providers.Add(new EventPipeProvider(SampleProfiler, EventLevel.Informational));
        }

        foreach (var name in extraProviders ?? [])
        {
            if (providers.All(p => p.Name != name))
            {
                providers.Add(new EventPipeProvider(name, EventLevel.Verbose, -1));
            }
        }

        return providers;
    }

    /// <summary>
    /// What a recording of these further providers needs: TailDb's own sources set their own
    /// activity ids; anything else (ASP.NET Core's Request, a user's EventSource) gets its ids from
    /// TplEventSource's task flow.
    /// </summary>
    public static ActivityIdSource ActivityIdsFor(IEnumerable<string>? extraProviders) =>
        (extraProviders ?? []).All(name => string.Equals(name, Server, StringComparison.OrdinalIgnoreCase)
            || string.Equals(name, TailDb, StringComparison.OrdinalIgnoreCase)
            || string.Equals(name, LoadTestEventContract.ProviderName, StringComparison.OrdinalIgnoreCase))
            ? ActivityIdSource.Own
            : ActivityIdSource.TaskFlow;
}

/// <summary>Where the recorded Start/Stop events get their activity ids.</summary>
/// <remarks>TailDb's own sources (the store, the load test's Request, the server's Command) set their
/// own ids, in EventSource's activity-path format, nested through RelatedActivityId: PerfView pairs
/// and nests them without TplEventSource, whose activity tracking allocates on every Start.</remarks>
public enum ActivityIdSource
{
    /// <summary>The sources set their own (TailDb, TailDb-LoadTest, TailDb-Server): TplEventSource stays off.</summary>
    Own,

    /// <summary>TplEventSource keyword 0x80 (TasksFlowActivityIds) assigns them: any EventSource's Start/Stop.</summary>
    TaskFlow,
}
