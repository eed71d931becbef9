using System.Diagnostics;

namespace TailDb.LoadTest.Injections;

/// <summary>
/// One firing of an injection: when it began and ended, for a sleep the load thread that slept,
/// and for a GC or an allocation burst how long the GC paused the process inside the window
/// (<see cref="GC.GetTotalPauseDuration"/> before and after; 0 for the others). A request cannot
/// have waited on a GC longer than that, however long the window stretched on a starved machine.
/// </summary>
public readonly record struct InjectionWindow(int Injection, long Start, long Stop, int Thread, double PausedMs = 0);

/// <summary>What an injection did to one request, as seen from inside it.</summary>
[Flags]
public enum RequestEffect : byte
{
    None = 0,

    /// <summary>The request found the lock injection's gate taken (<c>Monitor.TryEnter</c> failed) and waited for it.</summary>
    WaitedOnGate = 1,

    /// <summary>The request's handler took a due sleep.</summary>
    Slept = 2,

    /// <summary>The request's handler touched a due page-faults injection's fresh memory.</summary>
    Faulted = 4,
}

/// <summary>
/// Produces the --inject causes during the measured phase and remembers exactly when each fired.
/// GC, lock and alloc-burst run on the injector's own thread; a sleep is taken by whichever load
/// thread next enters a request after it is due (<see cref="OnRequest"/>), inside that request, as a
/// stalled handler would. The request path pays a volatile read (and an uncontended lock when a lock
/// injection is on); it never allocates.
/// </summary>
public sealed class Injector : IDisposable
{
    private const int MaxWindows = 4096;

    private readonly IReadOnlyList<Injection> _injections;
    private readonly InjectionWindow[] _windows = new InjectionWindow[MaxWindows];
    private readonly object _windowsLock = new();
    private readonly ManualResetEventSlim _stop = new();
    private int _windowCount;
    private Thread? _thread;

    // The sleep (or page-faults touch) due next: its injection index + 1, 0 when none is due.
    private int _sleepDue;
    private int _faultDue;

    // The cpu-hog's process, and whether this load thread (each phase starts its own) has pinned itself to the hog's CPU yet.
    private readonly CpuHog? _hog;
    [ThreadStatic]
    private static bool t_pinned;

    public Injector(IReadOnlyList<Injection> injections)
    {
        _injections = injections;
        Gate = injections.Any(i => i.Kind == InjectionKind.Lock) ? new object() : null;
        _hog = injections.Any(i => i.Kind == InjectionKind.CpuHog) ? CpuHog.Start() : null;
    }

    public IReadOnlyList<Injection> Injections => _injections;

    /// <summary>The lock every request takes when a lock injection is on; null otherwise.</summary>
    public object? Gate { get; }

    public ReadOnlySpan<InjectionWindow> Windows => _windows.AsSpan(0, _windowCount);

    /// <summary>Starts firing on schedule from now (the measured phase's start).</summary>
    public void Start() => Start(_injections.Select(i => i.FirstSeconds).ToArray(), repeat: true);

    /// <summary>
    /// Fires each injection once, a tenth of a second apart, from now: run during the warm-up (then
    /// <see cref="Clear"/>ed), so each injection's code paths are compiled before the measured
    /// phase and the first lock contention or sleep adds no JIT time of its own.
    /// </summary>
    public void Rehearse() => Start(_injections.Select((_, i) => 0.1 * (i + 1)).ToArray(), repeat: false);

    private void Start(double[] firstSeconds, bool repeat)
    {
        _stop.Reset();
        long origin = Stopwatch.GetTimestamp();
        _thread = new Thread(() => Run(origin, firstSeconds, repeat))
        {
            IsBackground = true,
            Name = "injector",
            Priority = ThreadPriority.AboveNormal,
        };
        _thread.Start();
    }

    /// <summary>Called by load thread <paramref name="thread"/> inside each request, before the store call.</summary>
    /// <returns>What the injections did to this request: the truth file counts a lock firing only
    /// against requests that actually waited on its gate, not every request its window overlapped
    /// (on a starved machine that includes requests the OS simply did not run).</returns>
    public RequestEffect OnRequest(int thread)
    {
        RequestEffect effect = RequestEffect.None;
        if (Gate is { } gate)
        {
            if (Monitor.TryEnter(gate))
            {
                Monitor.Exit(gate);
            }
            else
            {
                effect |= RequestEffect.WaitedOnGate;
                lock (gate)
                {
                }
            }
        }

        if (_hog is not null && thread == 0 && !t_pinned)
        {
            // Once per load thread 0 (the warm-up's and the measured phase's are different threads): the hog's victim shares its CPU.
            t_pinned = CpuHog.Pin(CpuHog.Cpu);
        }

        if (Volatile.Read(ref _faultDue) != 0)
        {
            int due = Interlocked.Exchange(ref _faultDue, 0);
            if (due != 0)
            {
                long start = Stopwatch.GetTimestamp();
                TouchFreshMemory(_injections[due - 1].Megabytes);
                Record(new InjectionWindow(due - 1, start, Stopwatch.GetTimestamp(), thread));
                effect |= RequestEffect.Faulted;
            }
        }

        if (Volatile.Read(ref _sleepDue) != 0)
        {
            int due = Interlocked.Exchange(ref _sleepDue, 0);
            if (due != 0)
            {
                long start = Stopwatch.GetTimestamp();
                Thread.Sleep(TimeSpan.FromMilliseconds(_injections[due - 1].HoldMilliseconds));
                Record(new InjectionWindow(due - 1, start, Stopwatch.GetTimestamp(), thread));
                effect |= RequestEffect.Slept;
            }
        }

        return effect;
    }

    /// <summary>Forgets the firings so far (the warm-up's).</summary>
    public void Clear() => _windowCount = 0;

    public void Stop()
    {
        _stop.Set();
        _thread?.Join();
        // A sleep that came due after the last request was sent never happened.
        Volatile.Write(ref _sleepDue, 0);
        Volatile.Write(ref _faultDue, 0);
    }

    public void Dispose()
    {
        Stop();
        _stop.Dispose();
        _hog?.Dispose();
    }

    /// <summary>
    /// A fresh anonymous mapping (native, so no GC sees it), one byte written per page so the kernel
    /// faults in and zeroes every page, then unmapped: the time is the page faults'.
    /// </summary>
    private static unsafe void TouchFreshMemory(int megabytes)
    {
        nuint bytes = (nuint)megabytes * 1024 * 1024;
        byte* memory = (byte*)System.Runtime.InteropServices.NativeMemory.Alloc(bytes);
        for (nuint at = 0; at < bytes; at += 4096)
        {
            memory[at] = 1;
        }

        System.Runtime.InteropServices.NativeMemory.Free(memory);
    }

    private void Run(long origin, double[] next, bool repeat)
    {
        while (true)
        {
            int soonest = 0;
            for (int i = 1; i < next.Length; i++)
            {
                soonest = next[i] < next[soonest] ? i : soonest;
            }

            if (double.IsPositiveInfinity(next[soonest]))
            {
                // A rehearsal that has fired everything.
                _stop.Wait();
                return;
            }

            double wait = next[soonest] - Stopwatch.GetElapsedTime(origin).TotalSeconds;
            if (_stop.Wait(TimeSpan.FromSeconds(Math.Max(0, wait))))
            {
                return;
            }

            Fire(soonest);
            next[soonest] = repeat ? next[soonest] + _injections[soonest].EverySeconds : double.PositiveInfinity;
        }
    }

    private void Fire(int index)
    {
        Injection injection = _injections[index];
        TimeSpan pausedBefore = GC.GetTotalPauseDuration();
        long start = Stopwatch.GetTimestamp();
        switch (injection.Kind)
        {
            case InjectionKind.Gc:
                GC.Collect(2, GCCollectionMode.Forced, blocking: true);
                break;
            case InjectionKind.Lock:
                lock (Gate!)
                {
                    start = Stopwatch.GetTimestamp();
                    Thread.Sleep(TimeSpan.FromMilliseconds(injection.HoldMilliseconds));
                    Record(new InjectionWindow(index, start, Stopwatch.GetTimestamp(), -1));
                }

                return;
            case InjectionKind.Sleep:
                // Taken (and recorded) by the next request's thread.
                Volatile.Write(ref _sleepDue, index + 1);
                return;
            case InjectionKind.PageFaults:
                Volatile.Write(ref _faultDue, index + 1);
                return;
            case InjectionKind.CpuHog:
                var (spinStart, spinStop) = _hog!.Spin(injection.HoldMilliseconds);
                Record(new InjectionWindow(index, spinStart, spinStop, 0));
                return;
            case InjectionKind.AllocBurst:
                AllocateBurst(injection.Megabytes);
                break;
        }

        long stop = Stopwatch.GetTimestamp();
        Record(new InjectionWindow(index, start, stop, -1, (GC.GetTotalPauseDuration() - pausedBefore).TotalMilliseconds));
    }

    // Held until the whole burst is allocated, so it survives the GCs it triggers (promotion work
    // an application's burst of live buffers causes), then dropped. Uninitialized, as ArrayPool
    // rents them: the burst's own time is then the GCs it triggers. Zeroing 64 MiB kept this thread
    // in cooperative mode for tens of milliseconds (longer while the OS had it preempted), and every
    // sampler tick meanwhile waited for it to reach a safe point: the requests it slowed were
    // stalled mostly by the measurement, not by the GCs the injection stands for (alloc-burst alone,
    // every second, load 23-29: ticks held up inside the bursts 200-370 ms per 6 bursts and
    // measurement overhead 41-42% of the slow set's time; uninitialized 5-13 ms and 1.6-2.1%).
    private static void AllocateBurst(int megabytes)
    {
        const int Chunk = 64 * 1024;
        var held = new byte[megabytes * (1024 * 1024 / Chunk)][];
        for (int i = 0; i < held.Length; i++)
        {
            held[i] = GC.AllocateUninitializedArray<byte>(Chunk);
        }

        GC.KeepAlive(held);
    }

    private void Record(InjectionWindow window)
    {
        lock (_windowsLock)
        {
            if (_windowCount < _windows.Length)
            {
                _windows[_windowCount++] = window;
            }
        }
    }
}
