using TailDb.Analyzer.Sources;
using TailDb.Analyzer.Traces;

namespace TailDb.Analyzer.Computers;

/// <summary>Every computer that needs no stack, run together in one streaming pass.</summary>
internal sealed class ComputerSet
{
    private ComputerSet(RequestSelection selection, TraceClock? clock, EventMetadata? metadata)
    {
        Requests = new RequestComputer(selection, clock, metadata);
    }

    public RequestComputer Requests { get; }

    public PhaseComputer Phases { get; } = new();

    public GcPauseComputer Gc { get; } = new();

    public SuspensionComputer Suspensions { get; } = new();

    public ContentionComputer Contention { get; } = new();

    public JitComputer Jit { get; } = new();

    public ThreadPoolComputer ThreadPool { get; } = new();

    public ExceptionComputer Exceptions { get; } = new();

    public UpkeepComputer Upkeep { get; } = new();

    public StoreEventComputer StoreEvents { get; } = new();

    public TraceFacts Facts { get; private set; } = null!;

    public static ComputerSet Run(string tracePath, RequestSelection selection, bool framingChecked = false, CancellationToken cancellationToken = default)
    {
        var kind = TraceFile.Check(tracePath);
        var clock = TraceClock.Read(tracePath, kind);
        var set = new ComputerSet(selection, clock, EventMetadata.Read(tracePath, kind, selection.Provider));
        set.Facts = TracePass.Run(tracePath, [set.Requests, set.Phases, set.Gc, set.Suspensions, set.Contention, set.Jit, set.ThreadPool, set.Exceptions, set.Upkeep, set.StoreEvents],
            framingChecked, selection, cancellationToken);
        set.Phases.AddFromFile(tracePath, clock);
        return set;
    }
}
