using Microsoft.Diagnostics.Tracing.StackSources;
using TailDb.Analyzer.Scheduling;
using TailDb.Analyzer.Sources.Perf;
using TailDb.Analyzer.Traces;
using TailDb.Tracing.Sampling;

namespace TailDb.Analyzer.Stacks;

/// <summary>
/// What <c>perf</c> recorded beside a trace (<see cref="PerfFile"/>), on the trace's clock: the
/// traced process's CPU samples with their frames, the scheduler's view of its threads, and its
/// major page faults. Parsing is TraceEvent's LinuxPerfScriptEventParser (the format's one reader);
/// this class only selects the traced process and maps perf's CLOCK_MONOTONIC times onto the
/// trace's relative milliseconds (EventPipe's QPC is CLOCK_MONOTONIC on Linux).
/// </summary>
internal sealed class PerfSource
{
    private PerfSource(PerfFileHeader header, string path, StackSampleSet samples, SchedulerModel scheduler, long events, double coveredFromMSec, double coveredUntilMSec)
    {
        Header = header;
        Path = path;
        Samples = samples;
        Scheduler = scheduler;
        Events = events;
        CoveredFromMSec = coveredFromMSec;
        CoveredUntilMSec = coveredUntilMSec;
    }

    public PerfFileHeader Header { get; }

    public string Path { get; }

    /// <summary>On-CPU samples of the traced process only: perf samples a thread only while it runs.</summary>
    public StackSampleSet Samples { get; }

    public SchedulerModel Scheduler { get; }

    public long Events { get; }

    /// <summary>
    /// From when every CPU's events are in the file: the latest of the CPUs' first events. A recording
    /// starts before its trace; a flight recorder's dump (watch) holds what each CPU's ring kept,
    /// and the busiest CPU's ring reaches back least. Before this the scheduler's view has holes.
    /// </summary>
    public double CoveredFromMSec { get; }

    /// <summary>
    /// Until when the file holds the machine's events: its last event when perf script stopped at a
    /// damaged record (<see cref="PerfFileHeader.Cut"/>), otherwise to the end. After this the
    /// scheduler's view is empty, not calm.
    /// </summary>
    public double CoveredUntilMSec { get; }

    public double IntervalMSec => Header.RateHz > 0 ? 1000.0 / Header.RateHz : double.NaN;

    /// <summary>The perf file beside <paramref name="tracePath"/>, read; null when there is none.</summary>
    /// <exception cref="AnalyzerException">The file is there but is not a TailDb perf file, or the trace has no clock to place it on.</exception>
    public static PerfSource? TryRead(string tracePath, TraceKind kind, CancellationToken cancellationToken = default)
    {
        var path = PerfFile.PathBeside(tracePath);
        if (!File.Exists(path))
        {
            return null;
        }

        var header = PerfFile.ReadHeader(path)
            ?? throw new AnalyzerException(ExitCode.BadTrace, $"{path}: not a perf file TailDb wrote (its first line is not '{PerfFile.Magic} pid=...')");
        var clock = TraceClock.Read(tracePath, kind)
            ?? throw new AnalyzerException(ExitCode.BadTrace, $"{tracePath}: the trace's clock cannot be read, so {path} cannot be placed on it");
        return Read(path, header, clock.SyncTimeQpc * 1000.0 / clock.QpcFrequency, cancellationToken);
    }

    /// <param name="originMSec">CLOCK_MONOTONIC in ms at the trace's relative zero.</param>
    internal static PerfSource Read(string path, PerfFileHeader header, double originMSec, CancellationToken cancellationToken = default)
    {
        var pid = header.ProcessId;
        var scheduler = new SchedulerModelBuilder(pid, header.RateHz > 0 ? 1000.0 / header.RateHz : double.NaN);
        var samples = new List<StackSample>();
        var stacks = new List<IReadOnlyList<string>>();
        var stackIds = new Dictionary<string, int>(StringComparer.Ordinal);
        var frames = new List<string>(64);
        var unresolved = new HashSet<string>(StringComparer.Ordinal);
        long events = 0;
        var last = 0.0;
        var firstByCpu = new Dictionary<int, double>();
        using var stream = PerfFile.OpenRaw(path);
        var parser = new LinuxPerfScriptEventParser();
        foreach (var linuxEvent in parser.ParseSkippingPreamble(stream))
        {
            if ((++events & 0xFFF) == 0)
            {
                cancellationToken.ThrowIfCancellationRequested();
            }

            var time = linuxEvent.TimeMSec - originMSec;
            last = Math.Max(last, time);
            firstByCpu.TryAdd(linuxEvent.CpuNumber, time);
            scheduler.Saw(linuxEvent.ProcessID, linuxEvent.ThreadID, linuxEvent.Command);
            if (linuxEvent is not SchedulerEvent { Switch: not null })
            {
                // Whatever the event, its thread was on that CPU then (a switch says so itself).
                scheduler.Current(time, linuxEvent.CpuNumber, linuxEvent.ThreadID);
            }

            switch (linuxEvent)
            {
                case SchedulerEvent { Switch: { } change }:
                    scheduler.Switch(time, linuxEvent.CpuNumber, change.PreviousThreadID, change.PreviousState, change.NextThreadID, change.NextCommand);
                    break;
                case SchedWakeupEvent { Wakeup: { } wakeup }:
                    scheduler.Wakeup(time, wakeup.ProcessId, linuxEvent.ThreadID, wakeup.TargetCpu);
                    break;
                case CpuEvent when linuxEvent.ProcessID == pid && linuxEvent.EventName.StartsWith("major-faults", StringComparison.Ordinal):
                    scheduler.MajorFault(time, linuxEvent.ThreadID);
                    break;
                case CpuEvent when linuxEvent.ProcessID == pid && linuxEvent.EventName.StartsWith("cpu-clock", StringComparison.Ordinal):
                    frames.Clear();
                    foreach (var frame in linuxEvent.CallerStacks)
                    {
                        if (frame is StackFrame stackFrame)
                        {
                            var name = PerfFrames.Name(stackFrame.Module ?? "", stackFrame.Symbol ?? "", stackFrame.Address ?? "");
                            frames.Add(name);
                            if (name.StartsWith("unresolved!", StringComparison.Ordinal))
                            {
                                unresolved.Add(name);
                            }
                        }
                    }

                    var key = string.Join('\n', frames);
                    if (!stackIds.TryGetValue(key, out var id))
                    {
                        id = stacks.Count;
                        stacks.Add(frames.ToArray());
                        stackIds.Add(key, id);
                    }

                    samples.Add(new StackSample(time, linuxEvent.ThreadID, id, Managed: true));
                    break;
            }
        }

        samples.Sort((a, b) => a.TimeRelativeMSec.CompareTo(b.TimeRelativeMSec));
        return new PerfSource(header, path, new StackSampleSet(samples, stacks, unresolved.Count) { IntervalMSec = header.RateHz > 0 ? 1000.0 / header.RateHz : double.NaN, OnCpuOnly = true },
            scheduler.Build(last), events, firstByCpu.Count > 0 ? firstByCpu.Values.Max() : double.NaN, header.Cut ? last : double.PositiveInfinity);
    }
}
