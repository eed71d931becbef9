using System.Diagnostics;
using System.Text.Json;
using TailDb.LoadTest.Reporting;

namespace TailDb.LoadTest.Injections;

/// <summary>A request an injection slowed: identified by its arrival (its intended start, the Request Start's arrivalTimestamp).</summary>
/// <param name="Injection">Index into <see cref="TruthFile.Injections"/>.</param>
/// <param name="Queued">True when the firing did not touch it directly but it waited behind a request that the firing slowed.</param>
/// <param name="InjectedMs">How much of its response time the firing accounts for (see <see cref="TruthFile"/>).</param>
public sealed record AffectedRequest(int Injection, int Thread, long Arrival, long Start, long Done, double ResponseMs, bool Queued, double InjectedMs);

/// <summary>
/// The ground truth of an injected run, written beside the trace (<c>TRACE.truth.json</c>): each
/// injection, each firing's window, and every measured request the firing slowed, with how much.
/// Timestamps are <c>Stopwatch.GetTimestamp()</c> ticks, the clock the trace's events are stamped with.
/// <para>
/// A firing touches a request directly when the request's response [arrival, done] overlaps the
/// firing's window and the firing could have held it there: for a lock, only a request that found
/// the gate taken (<see cref="RequestEffect.WaitedOnGate"/>); for a sleep, the request that slept;
/// for a GC or an allocation burst, any request, for the GC pauses inside the window that it
/// overlapped (<see cref="GcPauseListener"/>; when the pauses are unknown, for no longer than the
/// window's pause total). Its injected time is that overlap. A request that waited behind a slowed one
/// on the same load thread inherits the part of its wait the firing explains: at most the time the
/// one in front was slowed by it. On a starved machine a window stretches and requests the OS did not
/// run overlap it; this keeps them from counting as the firing's.
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
                    AddAffected(affected, window, kind, thread, log.Of(thread), pauses);
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
        List<AffectedRequest> affected, InjectionWindow window, InjectionKind kind, int thread, ReadOnlySpan<RequestTimes> requests, IReadOnlyList<GcPauseTimes>? pauses)
    {
        bool gc = kind is InjectionKind.Gc or InjectionKind.AllocBurst;
        double inFront = 0; // the injected time of the request in front, 0 when the firing did not slow it
        for (int i = LowerBoundByDone(requests, window.Start); i < requests.Length; i++)
        {
            RequestTimes r = requests[i];
            double direct = r.Arrival > window.Stop || !Touches(kind, r.Effect) ? 0
                : !gc ? OverlapMs(r, window.Start, window.Stop)
                : pauses is null ? Math.Min(window.PausedMs, OverlapMs(r, window.Start, window.Stop))
                : PausedMs(r, window, pauses);
            double inherited = i > 0 && inFront > 0 && r.Arrival < requests[i - 1].Done
                ? Math.Min(inFront, Milliseconds(requests[i - 1].Done - r.Arrival))
                : 0;
            inFront = Math.Max(direct, inherited);
            if (inFront > 0)
            {
                affected.Add(new AffectedRequest(window.Injection, thread, r.Arrival, r.Start, r.Done, Milliseconds(r.Done - r.Arrival), direct == 0, inFront));
            }
            else if (r.Arrival > window.Stop)
            {
                // Past the window, and arrived to a thread the firing no longer held up.
                break;
            }
        }
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

    /// <summary>How long GC pauses inside the firing's window held the request.</summary>
    private static double PausedMs(RequestTimes r, InjectionWindow window, IReadOnlyList<GcPauseTimes> pauses)
    {
        double held = 0;
        foreach (GcPauseTimes pause in pauses)
        {
            if (pause.Start < window.Stop && pause.Stop > window.Start)
            {
                held += OverlapMs(r, Math.Max(pause.Start, window.Start), Math.Min(pause.Stop, window.Stop));
            }
        }

        return held;
    }

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
