using System.Globalization;
using Microsoft.Diagnostics.Tracing;
using TailDb.Analyzer.Traces;
using TailDb.Tracing;

namespace TailDb.Analyzer.Computers;

/// <summary>One fan-out request on the client: its arrival and end, and each shard's Get (send, reply), on the trace's relative clock.</summary>
internal sealed record FanOutRequestRecord(long ArrivalQpc, double StopMSec, IReadOnlyDictionary<int, (double SentMSec, double ReplyMSec)> Gets);

/// <summary>
/// The load test's fan-out client in its trace (LoadTestEventContract): a Request activity per
/// request under an activity id of its own, and per shard an Attempt nested in it
/// (RelatedActivityId: the request's id), the shard in the Attempt's connection field, started at
/// the Get's send and stopped when its reply was in. A Get whose reply never came has no entry.
/// </summary>
internal sealed class FanOutComputer : ITraceComputer
{
    private const int ArrivalField = 0;
    private const int ConnectionField = 0;

    private readonly Dictionary<Guid, long> _open = [];
    private readonly Dictionary<Guid, (Guid Request, int Shard, double StartMSec)> _attempts = [];
    private readonly Dictionary<Guid, Dictionary<int, (double, double)>> _gets = [];
    private readonly List<(Guid Request, long Arrival, double StopMSec)> _stops = [];

    public List<FanOutRequestRecord> Requests { get; } = [];

    public void Attach(TraceEventDispatcher source)
    {
        source.OnProvider(LoadTestEventContract.ProviderName, OnEvent);
    }

    public void Complete(double traceEndMSec)
    {
        foreach (var (request, arrival, stop) in _stops)
        {
            Requests.Add(new FanOutRequestRecord(arrival, stop, _gets.TryGetValue(request, out var gets) ? gets : new Dictionary<int, (double, double)>()));
        }
    }

    private void OnEvent(TraceEvent data)
    {
        var id = data.ActivityID;
        if (id == Guid.Empty)
        {
            return;
        }

        switch ((int)data.ID)
        {
            case LoadTestEventContract.EventIds.RequestStart:
                _open[id] = Convert.ToInt64(data.PayloadValue(ArrivalField), CultureInfo.InvariantCulture);
                break;
            case LoadTestEventContract.EventIds.RequestStop when _open.Remove(id, out long arrival):
                _stops.Add((id, arrival, data.TimeStampRelativeMSec));
                break;
            case LoadTestEventContract.EventIds.AttemptStart:
                _attempts[id] = (data.RelatedActivityID, Convert.ToInt32(data.PayloadValue(ConnectionField), CultureInfo.InvariantCulture), data.TimeStampRelativeMSec);
                break;
            case LoadTestEventContract.EventIds.AttemptStop when _attempts.Remove(id, out var attempt):
                if (!_gets.TryGetValue(attempt.Request, out var gets))
                {
                    gets = [];
                    _gets.Add(attempt.Request, gets);
                }

                gets[attempt.Shard] = (attempt.StartMSec, data.TimeStampRelativeMSec);
                break;
        }
    }
}

/// <summary>Every event's time in a trace (sorted, relative ms): where a process was silent, it did not run or had nothing to do.</summary>
internal sealed class EventTimesComputer : ITraceComputer
{
    public List<double> Times { get; } = [];

    public void Attach(TraceEventDispatcher source)
    {
        ArgumentNullException.ThrowIfNull(source);
        source.AllEvents += data => Times.Add(data.TimeStampRelativeMSec);
    }

    public void Complete(double traceEndMSec) => Times.Sort();

    /// <summary>The longest span inside [start, stop] with no event (its ends count as events).</summary>
    public double LongestSilence(double start, double stop)
    {
        int index = Times.BinarySearch(start);
        if (index < 0)
        {
            index = ~index;
        }

        double last = start, longest = 0;
        for (; index < Times.Count && Times[index] <= stop; index++)
        {
            longest = Math.Max(longest, Times[index] - last);
            last = Times[index];
        }

        return Math.Max(longest, stop - last);
    }
}
