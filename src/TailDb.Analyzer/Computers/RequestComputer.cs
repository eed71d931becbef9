using Microsoft.Diagnostics.Tracing;
using TailDb.Analyzer.Sources;
using TailDb.Analyzer.Traces;

namespace TailDb.Analyzer.Computers;

/// <summary>
/// Pairs the chosen provider's Start/Stop events into requests by <see cref="ActivityPairs{T}"/>'s
/// rule (ActivityID, or thread when the IDs are empty: TplEventSource keyword 0x80 was off), the
/// rule the watch pairs by too. The provider's other Start/Stop
/// activities (TailDb's FileRead, Fsync) are kept as windows nested in the request whose
/// ActivityID is their RelatedActivityID (or, without IDs, the request open on their thread).
/// Unpaired Starts and Stops are counted, never thrown.
/// </summary>
/// <param name="metadata">The provider's declared payload fields (a .nettrace's metadata); without it the types come from TraceEvent's values.</param>
internal sealed class RequestComputer(RequestSelection selection, TraceClock? clock = null, EventMetadata? metadata = null) : ITraceComputer
{
    private readonly Dictionary<int, Template> _templates = [];
    private readonly Dictionary<string, byte> _activityByName = new(StringComparer.OrdinalIgnoreCase);
    private readonly ActivityPairs<Open> _open = new();
    // A nested activity's parent: the open request whose ActivityID is its RelatedActivityID, or without ids the one open on its thread.
    private readonly Dictionary<Guid, int> _openRequestById = [];
    private readonly Dictionary<int, int> _openRequestOnThread = [];
    private long _pairedById;
    private long _pairedByThread;

    public RequestSelection Selection { get; } = selection;

    public List<ActivityInfo> Activities { get; } = [];

    public ChunkedBuffer<RequestRecord> Requests { get; } = new();

    public ChunkedBuffer<NestedRecord> Nested { get; } = new();

    /// <summary>Payload fields not kept (floats, GUIDs, times, arrays, or no room left in the record), per activity.</summary>
    public SortedSet<string> SkippedFields { get; } = new(StringComparer.Ordinal);

    /// <summary>
    /// One line per request event template whose payloads did not hold what its metadata declares:
    /// numbers written wider (an EventSource WriteEvent overload; read as written) or payloads too short.
    /// </summary>
    public IEnumerable<string> PayloadMismatches()
    {
        foreach (var (id, template) in _templates)
        {
            if (template.Activity == byte.MaxValue)
            {
                continue;
            }

            var plan = template.Plan;
            var name = $"{Activities[template.Activity].Name} event {id} {plan.Signature}";
            if (plan.Widened > 0)
            {
                yield return $"{name}: {plan.Widened:N0} payloads hold its numbers wider than declared, as EventSource's typed WriteEvent overloads " +
                    "write them (WriteEvent(id, long, long) for an int and a long); read where that overload put them. " +
                    "Writing it with WriteEventCore makes the payload match its metadata for every reader (TraceEvent and PerfView show those fields wrong).";
            }

            if (plan.Short > 0)
            {
                yield return $"{name}: {plan.Short:N0} payloads end before their declared fields do; only the fields inside them were read.";
            }
        }
    }

    public PairingMode Pairing => (_pairedById, _pairedByThread) switch
    {
        (0, 0) => PairingMode.None,
        (_, 0) => PairingMode.ActivityId,
        (0, _) => PairingMode.Thread,
        _ => PairingMode.Mixed,
    };

    public long PairedByThread => _pairedByThread;

    /// <summary>True once a request Start carried its arrival: response times are known.</summary>
    public bool WithArrival { get; private set; }

    public void Attach(TraceEventDispatcher source)
    {
        source.OnProvider(Selection.Provider, OnEvent);
    }

    public void Complete(double traceEndMSec)
    {
        foreach (var open in _open.Open())
        {
            Activities[open.Activity].UnpairedStarts++;
        }

        _open.Clear();
        _openRequestById.Clear();
    }

    private void OnEvent(TraceEvent data)
    {
        if (!string.Equals(data.ProviderName, Selection.Provider, StringComparison.OrdinalIgnoreCase))
        {
            return;
        }

        var opcode = data.Opcode;
        if (opcode != TraceEventOpcode.Start && opcode != TraceEventOpcode.Stop)
        {
            return;
        }

        if (!_templates.TryGetValue((int)data.ID, out var template))
        {
            template = CreateTemplate(data);
            _templates.Add((int)data.ID, template);
        }

        if (template.Activity == byte.MaxValue)
        {
            return;
        }

        if (opcode == TraceEventOpcode.Start)
        {
            OnStart(data, template);
        }
        else
        {
            OnStop(data, template);
        }
    }

    private void OnStart(TraceEvent data, Template template)
    {
        var activity = Activities[template.Activity];
        var time = data.TimeStampRelativeMSec;
        var thread = data.ThreadID;
        var id = data.ActivityID;
        int index;
        if (activity.IsRequest)
        {
            var record = new RequestRecord { StartMSec = time, StopMSec = double.NaN, ThreadId = thread, Activity = template.Activity };
            template.Plan.Read(data, ref record);
            index = Requests.Add(record);
            _openRequestOnThread[thread] = index;
            if (id != Guid.Empty)
            {
                _openRequestById[id] = index;
            }
        }
        else
        {
            var parent = -1;
            var related = data.RelatedActivityID;
            if (related != Guid.Empty && _openRequestById.TryGetValue(related, out var owner))
            {
                parent = owner;
            }
            else if (related == Guid.Empty && _openRequestOnThread.TryGetValue(thread, out var onThread))
            {
                parent = onThread;
            }

            index = Nested.Add(new NestedRecord(time, thread, parent, template.Activity));
        }

        if (_open.Start(ActivityKey.Of(id, thread, template.Activity), new Open(template.Activity, index), out var dropped))
        {
            Activities[dropped.Activity].UnpairedStarts++;
        }
    }

    private void OnStop(TraceEvent data, Template template)
    {
        var activity = Activities[template.Activity];
        var key = ActivityKey.Of(data.ActivityID, data.ThreadID, template.Activity);
        if (!_open.TryStop(key, out var open))
        {
            activity.UnpairedStops++;
            return;
        }

        var index = open.Index;
        var byThread = !key.HasActivity;

        var time = data.TimeStampRelativeMSec;
        activity.Completed++;
        if (activity.IsRequest)
        {
            ref var record = ref Requests[index];
            record.StopMSec = Math.Max(time, record.StartMSec);
            record.PairedByThread = byThread;
            record.CrossThread = data.ThreadID != record.ThreadId;
            template.Plan.Read(data, ref record);
            if (_openRequestOnThread.TryGetValue(record.ThreadId, out var onThread) && onThread == index)
            {
                _openRequestOnThread.Remove(record.ThreadId);
            }

            if (key.HasActivity)
            {
                _openRequestById.Remove(data.ActivityID);
            }

            if (byThread)
            {
                _pairedByThread++;
            }
            else
            {
                _pairedById++;
            }
        }
        else
        {
            ref var nested = ref Nested[index];
            nested.StopMSec = Math.Max(time, nested.StartMSec);
            nested.SameThread = data.ThreadID == nested.ThreadId;
            if (nested.Parent >= 0)
            {
                activity.WithParent++;
            }
        }
    }

    private Template CreateTemplate(TraceEvent data)
    {
        var name = RequestSelection.Stem(string.IsNullOrEmpty(data.TaskName) ? data.EventName ?? "" : data.TaskName);
        if (name.Length == 0)
        {
            return new Template(byte.MaxValue, PayloadPlan.Empty);
        }

        if (!_activityByName.TryGetValue(name, out var activity))
        {
            if (Activities.Count >= byte.MaxValue)
            {
                return new Template(byte.MaxValue, PayloadPlan.Empty);
            }

            activity = (byte)Activities.Count;
            Activities.Add(new ActivityInfo(name, Selection.IsRequest(name)));
            _activityByName.Add(name, activity);
        }

        var info = Activities[activity];
        var plan = info.IsRequest ? PayloadPlan.Build(data, info, Selection.ArrivalField, clock, metadata, Selection.StopField) : PayloadPlan.Empty;
        if (plan.HasArrival)
        {
            WithArrival = true;
        }

        foreach (var skipped in plan.Skipped)
        {
            SkippedFields.Add($"{info.Name}.{skipped}");
        }

        return new Template(activity, plan);
    }

    private sealed record Template(byte Activity, PayloadPlan Plan);

    private readonly record struct Open(byte Activity, int Index);
}
