using System.Reflection;
using System.Runtime.CompilerServices;
using Microsoft.Diagnostics.Tracing;

namespace TailDb.Analyzer.Sources.Etw;

/// <summary>
/// The members of TraceEvent that an event source outside its assembly needs and that TraceEvent
/// keeps internal: the template lookup by EVENT_RECORD, the per-template fix-up, the clock fields.
/// Reached by [UnsafeAccessor] (no reflection on the hot path); the lookup takes a pointer to an
/// internal struct, so it is called through its function pointer, resolved once.
/// Checked against TraceEvent 3.2.8; a test reads every shared trace through them.
/// </summary>
internal static unsafe class TraceEventInternals
{
    private static readonly delegate* managed<TraceEventDispatcher, void*, TraceEvent> s_lookup = ResolveLookup();

    public static TraceEvent Lookup(TraceEventDispatcher source, EtwEventRecord* record) => s_lookup(source, record);

    [UnsafeAccessor(UnsafeAccessorKind.Field, Name = "NeedsFixup")]
    public static extern ref bool NeedsFixup(TraceEvent template);

    /// <summary>Set by StopProcessing; the reader's loop checks it between events.</summary>
    [UnsafeAccessor(UnsafeAccessorKind.Field, Name = "stopProcessing")]
    public static extern ref bool StopRequested(TraceEventDispatcher source);

    [UnsafeAccessor(UnsafeAccessorKind.Field, Name = "_QPCFreq")]
    public static extern ref long QpcFrequency(TraceEventSource source);

    [UnsafeAccessor(UnsafeAccessorKind.Field, Name = "_syncTimeQPC")]
    public static extern ref long SyncTimeQpc(TraceEventSource source);

    [UnsafeAccessor(UnsafeAccessorKind.Field, Name = "_syncTimeUTC")]
    public static extern ref DateTime SyncTimeUtc(TraceEventSource source);

    [UnsafeAccessor(UnsafeAccessorKind.Field, Name = "sessionStartTimeQPC")]
    public static extern ref long SessionStartQpc(TraceEventSource source);

    [UnsafeAccessor(UnsafeAccessorKind.Field, Name = "sessionEndTimeQPC")]
    public static extern ref long SessionEndQpc(TraceEventSource source);

    [UnsafeAccessor(UnsafeAccessorKind.Field, Name = "pointerSize")]
    public static extern ref int PointerSize(TraceEventSource source);

    [UnsafeAccessor(UnsafeAccessorKind.Field, Name = "numberOfProcessors")]
    public static extern ref int NumberOfProcessors(TraceEventSource source);

    [UnsafeAccessor(UnsafeAccessorKind.Field, Name = "cpuSpeedMHz")]
    public static extern ref int CpuSpeedMHz(TraceEventSource source);

    [UnsafeAccessor(UnsafeAccessorKind.Field, Name = "utcOffsetMinutes")]
    public static extern ref int? UtcOffsetMinutes(TraceEventSource source);

    [UnsafeAccessor(UnsafeAccessorKind.Field, Name = "osVersion")]
    public static extern ref Version OsVersion(TraceEventSource source);

    /// <summary>EventPipeEventSource reads a related activity id from the extended data only from format 4 on.</summary>
    [UnsafeAccessor(UnsafeAccessorKind.Method, Name = "set_FileFormatVersionNumber")]
    public static extern void SetFileFormatVersion(EventPipeEventSource source, int version);

    /// <summary>
    /// The template's own FixupData (a virtual: kernel process events move the payload's process id into
    /// the header, samples their thread id). A delegate bound to the template dispatches virtually.
    /// </summary>
    public static Action FixupOf(TraceEvent template)
    {
        var method = typeof(TraceEvent).GetMethod("FixupData", BindingFlags.Instance | BindingFlags.NonPublic)
            ?? throw new MissingMethodException(typeof(TraceEvent).FullName, "FixupData");
        return (Action)Delegate.CreateDelegate(typeof(Action), template, method);
    }

    private static delegate* managed<TraceEventDispatcher, void*, TraceEvent> ResolveLookup()
    {
        var method = typeof(TraceEventDispatcher).GetMethod("Lookup", BindingFlags.Instance | BindingFlags.NonPublic)
            ?? throw new MissingMethodException(typeof(TraceEventDispatcher).FullName, "Lookup");
        var parameters = method.GetParameters();
        if (method.IsVirtual || parameters.Length != 1 || !parameters[0].ParameterType.IsPointer || method.ReturnType != typeof(TraceEvent))
        {
            throw new MissingMethodException($"TraceEventDispatcher.Lookup has an unexpected signature: {method}");
        }

        return (delegate* managed<TraceEventDispatcher, void*, TraceEvent>)method.MethodHandle.GetFunctionPointer();
    }
}
