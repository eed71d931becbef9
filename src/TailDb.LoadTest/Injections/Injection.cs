using System.Globalization;

namespace TailDb.LoadTest.Injections;

/// <summary>A known cause the load test can produce on purpose (--inject), to check the analyzer blames it.</summary>
public enum InjectionKind
{
    /// <summary>A blocking gen2 GC.Collect on the injector thread: every thread stops.</summary>
    Gc,

    /// <summary>The injector holds a lock every request takes: requests wait on it (ContentionStart/Stop).</summary>
    Lock,

    /// <summary>One request handler sleeps: its request and the ones queued behind it on its thread wait.</summary>
    Sleep,

    /// <summary>The injector allocates (and holds until done) a burst of memory: GCs the app did not ask for.</summary>
    AllocBurst,

    /// <summary>
    /// Another process, pinned to load thread 0's CPU (the thread is pinned there too), spins at
    /// real-time priority: the load thread is runnable and not run. Only the scheduler's view (perf) sees it.
    /// </summary>
    CpuHog,

    /// <summary>One request touches fresh memory (a new mapping, every page written, then unmapped): the kernel zeroes each page it faults in.</summary>
    PageFaults,
}

/// <summary>
/// One --inject: what to do, how often in the measured phase, and how much. The first one fires
/// half a period into the measured phase (shifted by the kind, so two kinds with one period do not
/// coincide), then every <see cref="EverySeconds"/>.
/// </summary>
public sealed record Injection(InjectionKind Kind, double EverySeconds, double HoldMilliseconds = 0, int Megabytes = 0)
{
    public string Spelled => Kind switch
    {
        InjectionKind.Gc => F($"gc:every={EverySeconds}s"),
        InjectionKind.Lock => F($"lock:every={EverySeconds}s,hold={HoldMilliseconds}ms"),
        InjectionKind.Sleep => F($"sleep:every={EverySeconds}s,ms={HoldMilliseconds}"),
        InjectionKind.CpuHog => F($"cpu-hog:every={EverySeconds}s,ms={HoldMilliseconds}"),
        InjectionKind.PageFaults => F($"page-faults:every={EverySeconds}s,mb={Megabytes}"),
        _ => F($"alloc-burst:every={EverySeconds}s,mb={Megabytes}"),
    };

    /// <summary>Seconds into the measured phase of the first firing.</summary>
    public double FirstSeconds => (EverySeconds / 2) + (0.137 * (int)Kind);

    private static string F(FormattableString s) => s.ToString(CultureInfo.InvariantCulture);
}
