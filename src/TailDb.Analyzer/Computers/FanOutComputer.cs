using Microsoft.Diagnostics.Tracing;
using TailDb.Analyzer.Traces;
using TailDb.Tracing;

namespace TailDb.Analyzer.Computers;

/// <summary>One fan-out request on the client: its arrival and end, and each shard's Get (send, reply), on the trace's relative clock.</summary>
internal sealed record FanOutRequestRecord(long ArrivalQpc, double StopMSec, IReadOnlyDictionary<int, (double SentMSec, double ReplyMSec)> Gets);

/// <summary>
/// The load test's fan-out client in its trace (LoadTestEventContract): a Request Start/Stop per
/// request on its load thread, and per shard a RequestSent and a ReplyReceived mark, the shard in
/// the connection field and the request's arrival tying them to it. A Get whose reply never came
/// has no entry.
/// </summary>
internal sealed class FanOutComputer : ITraceComputer
{
    private const int ArrivalField = 0;
    private const int ConnectionField = 1;

    private readonly Dictionary<int, long> _openOnThread = [];
    private readonly Dictionary<(long Arrival, int Shard), double> _sent = [];
    private readonly Dictionary<long, Dictionary<int, (double, double)>> _gets = [];
    private readonly List<(long Arrival, double StopMSec)> _stops = [];

    public List<FanOutRequestRecord> Requests { get; } = [];

    public void Attach(TraceEventDispatcher source)
    {
        ArgumentNullException.ThrowIfNull(source);
        source.Dynamic.AddCallbackForProviderEvents(
            (provider, _) => string.Equals(provider, LoadTestEventContract.ProviderName, StringComparison.OrdinalIgnoreCase)
                ? EventFilterResponse.AcceptEvent
                : EventFilterResponse.RejectProvider,
            OnEvent);
    }

    public void Complete(double traceEndMSec)
    {
        foreach (var (arrival, stop) in _stops)
        {
            Requests.Add(new FanOutRequestRecord(arrival, stop, _gets.TryGetValue(arrival, out var gets) ? gets : new Dictionary<int, (double, double)>()));
        }
    }

    private void OnEvent(TraceEvent data)
    {
        switch ((int)data.ID)
        {
            case LoadTestEventContract.EventIds.RequestStart:
                _openOnThread[data.ThreadID] = Convert.ToInt64(data.PayloadValue(ArrivalField), System.Globalization.CultureInfo.InvariantCulture);
                break;
            case LoadTestEventContract.EventIds.RequestStop when _openOnThread.Remove(data.ThreadID, out long arrival):
                _stops.Add((arrival, data.TimeStampRelativeMSec));
                break;
            case LoadTestEventContract.EventIds.RequestSent:
                _sent[(Arrival(data), Shard(data))] = data.TimeStampRelativeMSec;
                break;
            case LoadTestEventContract.EventIds.ReplyReceived:
                var key = (Arrival(data), Shard(data));
                if (_sent.Remove(key, out double sent))
                {
                    if (!_gets.TryGetValue(key.Item1, out var gets))
                    {
                        gets = [];
                        _gets.Add(key.Item1, gets);
                    }

                    gets[key.Item2] = (sent, data.TimeStampRelativeMSec);
                }

                break;
        }
    }

    private static long Arrival(TraceEvent data) => Convert.ToInt64(data.PayloadValue(ArrivalField), System.Globalization.CultureInfo.InvariantCulture);

    private static int Shard(TraceEvent data) => Convert.ToInt32(data.PayloadValue(ConnectionField), System.Globalization.CultureInfo.InvariantCulture);
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
