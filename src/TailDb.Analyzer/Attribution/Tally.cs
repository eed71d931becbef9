using TailDb.Analyzer.Causes;
using TailDb.Analyzer.Computers;

namespace TailDb.Analyzer.Attribution;

/// <summary>
/// Every request in scope measured against every cause, queue and service apart: per cause, the
/// time it covered in the slow set and in the rest, and the slow set's queue share of it.
/// </summary>
internal sealed class Tally
{
    private Tally(int causes, PayloadCorrelation payload)
    {
        SlowTotals = new double[causes];
        SlowQueueTotals = new double[causes];
        RestTotals = new double[causes];
        Payload = payload;
    }

    public double[] SlowTotals { get; }

    public double[] SlowQueueTotals { get; }

    public double[] RestTotals { get; }

    public double SlowTime { get; private set; }

    public double RestTime { get; private set; }

    public long SlowCount { get; private set; }

    public long RestCount { get; private set; }

    public List<int> SlowIndices { get; } = [];

    public PayloadCorrelation Payload { get; }

    public static Tally Measure(ComputerSet set, AnalysisScope scope, Attributor attributor, double threshold)
    {
        var tally = new Tally(attributor.Causes.Count, new PayloadCorrelation(set.Requests.Activities));
        var queue = new double[attributor.Causes.Count];
        var service = new double[attributor.Causes.Count];
        var requests = set.Requests.Requests;
        for (var i = 0; i < requests.Count; i++)
        {
            ref var request = ref requests[i];
            if (scope.Contains(request))
            {
                tally.Add(request, i, scope, attributor, threshold, queue, service);
            }
        }

        return tally;
    }

    private void Add(in RequestRecord request, int index, AnalysisScope scope, Attributor attributor, double threshold, double[] queue, double[] service)
    {
        var latency = scope.Latency(request);
        var slow = latency >= threshold;
        if (scope.Basis == LatencyBasis.Response)
        {
            attributor.Measure(request, index, RequestPart.Queue, queue);
        }
        else
        {
            Array.Clear(queue);
        }

        attributor.Measure(request, index, RequestPart.Service, service);
        var totals = slow ? SlowTotals : RestTotals;
        for (var c = 0; c < totals.Length; c++)
        {
            totals[c] += queue[c] + service[c];
            if (slow)
            {
                SlowQueueTotals[c] += queue[c];
            }
        }

        if (slow)
        {
            SlowTime += latency;
            SlowCount++;
            SlowIndices.Add(index);
        }
        else
        {
            RestTime += latency;
            RestCount++;
        }

        Payload.Add(request, latency, slow);
    }
}
