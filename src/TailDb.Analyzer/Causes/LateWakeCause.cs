using TailDb.Analyzer.Intervals;
using TailDb.Analyzer.Scheduling;

namespace TailDb.Analyzer.Causes;

/// <summary>
/// A request came due while its thread was still asleep between requests: the wait that paces an
/// open loop (the load test's, an app's own timer) woke late, so the request's queue began before
/// anything served it. The thread's sleeps by the scheduler's events, less its requests' service
/// (a request queued behind an earlier one that slept waited for that one: EarlierRequests) and
/// less every GC pause and suspension (the pause's line), in the queue part only. On this machine
/// a timer can fire milliseconds late when the host takes the virtual CPU; either way the tail is
/// the load generator's or the machine's, not the requests' work (<see cref="Attribution.Verdicts"/>).
/// </summary>
internal sealed class LateWakeCause(Dictionary<int, List<(double Start, double Stop)>> sleepsByThread)
    : ThreadWindowsCause("its thread still asleep between requests when the request was due (the pacing wait woke late)", sleepsByThread)
{
    public override CauseKind Kind => CauseKind.LateWake;

    protected override RequestPart? Only => RequestPart.Queue;

    public static IEnumerable<ICause> From(CauseInputs inputs)
    {
        ArgumentNullException.ThrowIfNull(inputs);
        var servicesByThread = inputs.ServicesByThread;
        if (inputs.Scheduler is null || servicesByThread.Count == 0)
        {
            return [];
        }

        var stopped = inputs.StoppedWindows;
        var ignored = new List<(double, double)>();
        var outsideStops = new List<(double, double)>();
        var byThread = new Dictionary<int, List<(double Start, double Stop)>>();
        foreach (var (thread, spans) in inputs.OffCpu)
        {
            if (!servicesByThread.TryGetValue(thread, out var services))
            {
                continue;
            }

            var served = Windows.Merge([.. services]);
            foreach (var (span, inFault) in spans)
            {
                if (span.State != RunState.Sleeping || inFault)
                {
                    continue;
                }

                outsideStops.Clear();
                Windows.SplitAround(stopped, span.StartMSec, span.StopMSec, outsideStops, ignored);
                var windows = Windows.Group(byThread, thread);
                foreach (var (start, stop) in outsideStops)
                {
                    Windows.SplitAround(served, start, stop, windows, ignored);
                }
            }
        }

        return byThread.Values.Any(w => w.Count > 0) ? [new LateWakeCause(byThread)] : [];
    }
}
