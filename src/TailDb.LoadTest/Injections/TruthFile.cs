using System.Diagnostics;
using System.Text.Json;
using TailDb.LoadTest.Reporting;

namespace TailDb.LoadTest.Injections;

/// <summary>A request an injection slowed: identified by its arrival (its intended start, the Request Start's arrivalTimestamp).</summary>
/// <param name="Injection">Index into <see cref="TruthFile.Injections"/>.</param>
/// <param name="Queued">True when it did not overlap the firing but waited behind requests that did.</param>
public sealed record AffectedRequest(int Injection, int Thread, long Arrival, long Start, long Done, double ResponseMs, bool Queued);

/// <summary>
/// The ground truth of an injected run, written beside the trace (<c>TRACE.truth.json</c>): each
/// injection, each firing's window, and every measured request whose response overlapped a firing
/// (or queued behind one that did, on the same load thread). Timestamps are
/// <c>Stopwatch.GetTimestamp()</c> ticks, the clock the trace's events are stamped with.
/// </summary>
public sealed record TruthFile(
    string Clock, long Frequency, IReadOnlyList<Injection> Injections, IReadOnlyList<InjectionWindow> Windows,
    IReadOnlyList<AffectedRequest> Requests, long RequestsLogged, long RequestsNotLogged)
{
    public static string PathBeside(string tracePath) => Path.ChangeExtension(tracePath, null) + ".truth.json";

    public static TruthFile Build(Injector injector, RequestLog log)
    {
        ArgumentNullException.ThrowIfNull(injector);
        ArgumentNullException.ThrowIfNull(log);
        var affected = new List<AffectedRequest>();
        foreach (InjectionWindow window in injector.Windows)
        {
            for (int thread = 0; thread < log.Threads; thread++)
            {
                if (window.Thread < 0 || window.Thread == thread)
                {
                    AddAffected(affected, window, thread, log.Of(thread));
                }
            }
        }

        long logged = 0;
        for (int t = 0; t < log.Threads; t++)
        {
            logged += log.Of(t).Length;
        }

        return new TruthFile("Stopwatch.GetTimestamp", Stopwatch.Frequency, injector.Injections, injector.Windows.ToArray(), affected, logged, log.Dropped);
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

    private static void AddAffected(List<AffectedRequest> affected, InjectionWindow window, int thread, ReadOnlySpan<RequestTimes> requests)
    {
        int first = LowerBoundByDone(requests, window.Start);
        int i = first;
        for (; i < requests.Length && requests[i].Arrival <= window.Stop; i++)
        {
            affected.Add(Affected(window, thread, requests[i], queued: false));
        }

        // The backlog the firing left: later requests that arrived while the one in front of them was
        // still being served, until one arrives to an idle thread. Not "every request sent late": on
        // a busy machine a thread that finished the backlog and then slept past its next due time was
        // late because the OS did not run it, which is not the firing's doing.
        for (; i > first && i < requests.Length && requests[i].Arrival < requests[i - 1].Done; i++)
        {
            affected.Add(Affected(window, thread, requests[i], queued: true));
        }
    }

    private static AffectedRequest Affected(InjectionWindow window, int thread, RequestTimes r, bool queued) =>
        new(window.Injection, thread, r.Arrival, r.Start, r.Done, (r.Done - r.Arrival) * 1000.0 / Stopwatch.Frequency, queued);

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
