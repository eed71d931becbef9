using Microsoft.Diagnostics.Tracing;
using TailDb.Analyzer.Traces;
using TailDb.Tracing;

namespace TailDb.Analyzer.Computers;

/// <summary>One marked phase of the run, in trace milliseconds.</summary>
internal readonly record struct PhaseWindow(Phase Phase, double StartMSec, double StopMSec);

/// <summary>
/// The load test's phase markers (<see cref="LoadTestEventContract"/>: PhaseStart/PhaseStop with a
/// <see cref="Phase"/> payload), so an analysis can take the measured phase alone. A phase still
/// open when the trace ends runs to the end.
/// </summary>
internal sealed class PhaseComputer : ITraceComputer
{
    private readonly Dictionary<Phase, double> _open = [];

    public List<PhaseWindow> Phases { get; } = [];

    /// <summary>Where the phases came from: the trace's own events, or the file beside it (<see cref="PhaseFile"/>).</summary>
    public string? SourceFile { get; private set; }

    /// <summary>A trace without phase events (a server's) takes them from FILE.phases.json, when the harness wrote one.</summary>
    public void AddFromFile(string tracePath, TraceClock? clock)
    {
        if (Phases.Count > 0 || clock is null || PhaseFile.Read(tracePath) is not { Count: > 0 } spans)
        {
            return;
        }

        foreach (var span in spans)
        {
            Phases.Add(new PhaseWindow(span.Phase, clock.RelativeMSec(span.StartTimestamp), clock.RelativeMSec(span.StopTimestamp)));
        }

        Phases.Sort((a, b) => a.StartMSec.CompareTo(b.StartMSec));
        SourceFile = Path.GetFileName(PhaseFile.PathBeside(tracePath));
    }

    public void Attach(TraceEventDispatcher source)
    {
        source.OnProvider(LoadTestEventContract.ProviderName, OnEvent);
    }

    public void Complete(double traceEndMSec)
    {
        foreach (var (phase, start) in _open)
        {
            Phases.Add(new PhaseWindow(phase, start, Math.Max(start, traceEndMSec)));
        }

        _open.Clear();
        Phases.Sort((a, b) => a.StartMSec.CompareTo(b.StartMSec));
    }

    private void OnEvent(TraceEvent data)
    {
        if ((int)data.ID is not (LoadTestEventContract.EventIds.PhaseStart or LoadTestEventContract.EventIds.PhaseStop)
            || data.PayloadIndex(LoadTestEventContract.Fields.Phase) is not (>= 0 and var field)
            || data.PayloadValue(field) is not int value || !Enum.IsDefined((Phase)value))
        {
            return;
        }

        var phase = (Phase)value;
        if ((int)data.ID == LoadTestEventContract.EventIds.PhaseStart)
        {
            _open[phase] = data.TimeStampRelativeMSec;
        }
        else if (_open.Remove(phase, out var start))
        {
            Phases.Add(new PhaseWindow(phase, start, Math.Max(start, data.TimeStampRelativeMSec)));
        }
    }
}
