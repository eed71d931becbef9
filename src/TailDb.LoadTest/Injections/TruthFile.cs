using System.Diagnostics;
using System.Text.Json;
using TailDb.LoadTest.Reporting;

namespace TailDb.LoadTest.Injections;

/// <summary>A request an injection slowed: identified by its arrival (its intended start, the Request Start's arrivalTimestamp).</summary>
/// <param name="Injection">Index into <see cref="TruthFile.Injections"/>.</param>
/// <param name="Queued">True when the firing did not touch it directly but it waited behind a request that the firing held.</param>
/// <param name="InjectedMs">How much of its response time the firing held its thread (see <see cref="TruthFile"/>).</param>
public sealed record AffectedRequest(int Injection, int Thread, long Arrival, long Start, long Done, double ResponseMs, bool Queued, double InjectedMs);

/// <summary>
/// The ground truth of an injected run, written beside the trace (<c>TRACE.truth.json</c>): each
/// injection, each firing's window, and every measured request the firing slowed, with how much.
/// Timestamps are <c>Stopwatch.GetTimestamp()</c> ticks, the clock the trace's events are stamped with.
/// <para>
/// A firing is charged to a request for the time it held the request's thread inside the request's
/// own response [arrival, done], never more. It holds a thread: for a GC or an allocation burst,
/// during the GC pauses inside its window (<see cref="GcPauseListener"/>; when the pauses are
/// unknown, for no longer than the window's pause total); for a CPU hog, during its spin on the
/// pinned thread; for a lock, a sleep or a fault burst, while a request it touched (one that found
/// the gate taken, <see cref="RequestEffect.WaitedOnGate"/>; the one that slept; the one that
/// faulted) was served inside the window. A request queued behind that one on the same thread is
/// charged the same hold, for the part of it that fell while it waited (<see cref="AffectedRequest.Queued"/>).
/// What held the thread after the firing ended is not the firing's: a backlog drains at service
/// speed (microseconds a request) once the thread runs, so a request still waiting long after is
/// held by something else (beside stress-ng, the wait for a CPU; a GC pause that came next).
/// Time a GC pause stopped the process inside a non-GC firing's hold is the pause's, not the
/// firing's (the faulting loop is stopped too), as the analyzer's GC line holds it. On a starved
/// machine a window stretches and requests the OS did not run overlap it; this keeps them from
/// counting as the firing's.
/// </para>
/// </summary>
public sealed record TruthFile(
    string Clock, long Frequency, IReadOnlyList<Injection> Injections, IReadOnlyList<InjectionWindow> Windows,
    IReadOnlyList<AffectedRequest> Requests, long RequestsLogged, long RequestsNotLogged, IReadOnlyList<GcPauseTimes>? Pauses = null)
{
    public static string PathBeside(string tracePath) => Path.ChangeExtension(tracePath, null) + ".truth.json";

    public static TruthFile Build(Injector injector, RequestLog log, IReadOnlyList<GcPauseTimes>? pauses)
    {
        ArgumentNullException.ThrowIfNull(injector);
        return Build(injector.Injections, injector.Windows.ToArray(), log, pauses);
    }

    /// <param name="pauses">Every GC pause of the phase in time order (<see cref="GcPauseListener"/>), or null when
    /// unknown: a GC firing then counts up to its window's pause total against any request it overlapped.</param>
    public static TruthFile Build(IReadOnlyList<Injection> injections, IReadOnlyList<InjectionWindow> windows, RequestLog log, IReadOnlyList<GcPauseTimes>? pauses = null)
    {
        ArgumentNullException.ThrowIfNull(injections);
        ArgumentNullException.ThrowIfNull(windows);
        ArgumentNullException.ThrowIfNull(log);
        var affected = new List<AffectedRequest>();
        foreach (InjectionWindow window in windows)
        {
            InjectionKind kind = injections[window.Injection].Kind;
            for (int thread = 0; thread < log.Threads; thread++)
            {
                if (window.Thread < 0 || window.Thread == thread)
                {
                    AddAffected(affected, window, injections[window.Injection], thread, log.Of(thread), pauses);
                }
            }
        }

        long logged = 0;
        for (int t = 0; t < log.Threads; t++)
        {
            logged += log.Of(t).Length;
        }

        return new TruthFile("Stopwatch.GetTimestamp", Stopwatch.Frequency, injections, windows, affected, logged, log.Dropped, pauses);
    }

    public void Write(string path)
    {
        string temporary = path + ".tmp";
        File.WriteAllText(temporary, JsonSerializer.Serialize(this, WorkerResult.Json));
        File.Move(temporary, path, overwrite: true);
    }

    public static TruthFile Read(string path) =>
        JsonSerializer.Deserialize<TruthFile>(File.ReadAllText(path), WorkerResult.Json)
            ?? throw new InvalidDataException($"{path} is empty");

    private static void AddAffected(
        List<AffectedRequest> affected, InjectionWindow window, Injection injection, int thread, ReadOnlySpan<RequestTimes> requests, IReadOnlyList<GcPauseTimes>? pauses)
    {
        InjectionKind kind = injection.Kind;
        bool gc = kind is InjectionKind.Gc or InjectionKind.AllocBurst;
        int first = LowerBoundByDone(requests, window.Start);
        List<(long Start, long Stop)> holds = Holds(window, injection, requests[first..], pauses);
        for (int i = first; i < requests.Length && requests[i].Arrival <= window.Stop; i++)
        {
            RequestTimes r = requests[i];
            double held = gc && pauses is null
                ? Math.Min(window.PausedMs, OverlapMs(r, window.Start, window.Stop))
                : HeldMs(r, holds, gc ? null : pauses);
            if (held > 0)
            {
                bool touched = gc || kind == InjectionKind.CpuHog || (Touches(kind, r.Effect) && OverlapMs(r, window.Start, window.Stop) > 0);
                affected.Add(new AffectedRequest(window.Injection, thread, r.Arrival, r.Start, r.Done, Milliseconds(r.Done - r.Arrival), !touched, held));
            }
        }
    }

    /// <summary>
    /// When the firing held this thread: a GC's or a burst's pauses inside its window (every thread
    /// stops); a CPU hog's spin (the thread pinned beside it); a lock, a sleep or a fault burst only
    /// while a request it touched was being served inside the window. A sleep holds no longer than
    /// it asked to: its window, taken around <c>Thread.Sleep</c>, also holds the wait for a CPU
    /// after the timer fired (beside stress-ng a 15 ms sleep's window lasted 28 ms, 12 ms of it
    /// runnable and not run), which is the machine's, not the sleep's.
    /// </summary>
    private static List<(long Start, long Stop)> Holds(InjectionWindow window, Injection injection, ReadOnlySpan<RequestTimes> requests, IReadOnlyList<GcPauseTimes>? pauses)
    {
        InjectionKind kind = injection.Kind;
        long stop = kind == InjectionKind.Sleep
            ? Math.Min(window.Stop, window.Start + (long)(injection.HoldMilliseconds * Stopwatch.Frequency / 1000))
            : window.Stop;
        var holds = new List<(long, long)>();
        if (kind is InjectionKind.Gc or InjectionKind.AllocBurst)
        {
            foreach (GcPauseTimes pause in pauses ?? [])
            {
                if (pause.Start < window.Stop && pause.Stop > window.Start)
                {
                    holds.Add((Math.Max(pause.Start, window.Start), Math.Min(pause.Stop, window.Stop)));
                }
            }
        }
        else if (kind == InjectionKind.CpuHog)
        {
            holds.Add((window.Start, window.Stop));
        }
        else
        {
            foreach (RequestTimes r in requests)
            {
                if (r.Arrival > window.Stop)
                {
                    break;
                }

                if (Touches(kind, r.Effect) && r.Done > window.Start)
                {
                    holds.Add((Math.Max(window.Start, r.Start), Math.Min(stop, r.Done)));
                }
            }
        }

        return holds;
    }

    /// <summary>
    /// How long the holds held this request: their overlap with its own response [arrival, done],
    /// less the GC pauses inside that overlap when the firing is not a GC's (<paramref name="pauses"/>
    /// null for a GC's own): a pause stops the process, the faulting or sleeping thread's request with it,
    /// and that time is the pause's, as the analyzer's GC line holds it.
    /// </summary>
    private static double HeldMs(RequestTimes r, List<(long Start, long Stop)> holds, IReadOnlyList<GcPauseTimes>? pauses)
    {
        double held = 0;
        foreach (var (start, stop) in holds)
        {
            long from = Math.Max(start, r.Arrival), to = Math.Min(stop, r.Done);
            if (to <= from)
            {
                continue;
            }

            held += Milliseconds(to - from);
            foreach (GcPauseTimes pause in pauses ?? [])
            {
                held -= Math.Max(0, Milliseconds(Math.Min(to, pause.Stop) - Math.Max(from, pause.Start)));
            }
        }

        return Math.Max(0, held);
    }

    private static bool Touches(InjectionKind kind, RequestEffect effect) => kind switch
    {
        InjectionKind.Lock => (effect & RequestEffect.WaitedOnGate) != 0,
        InjectionKind.Sleep => (effect & RequestEffect.Slept) != 0,
        InjectionKind.PageFaults => (effect & RequestEffect.Faulted) != 0,
        _ => true,
    };

    private static double OverlapMs(RequestTimes r, long start, long stop) =>
        Math.Max(0, Milliseconds(Math.Min(r.Done, stop) - Math.Max(r.Arrival, start)));

    private static double Milliseconds(long ticks) => ticks * 1000.0 / Stopwatch.Frequency;

    /// <summary>The first request done at or after <paramref name="time"/> (a thread's requests finish in order).</summary>
    private static int LowerBoundByDone(ReadOnlySpan<RequestTimes> requests, long time)
    {
        int low = 0, high = requests.Length;
        while (low < high)
        {
            int middle = (low + high) >>> 1;
            if (requests[middle].Done < time)
            {
                low = middle + 1;
            }
            else
            {
                high = middle;
            }
        }

        return low;
    }
}
