using TailDb.Analyzer.Computers;

namespace TailDb.Analyzer.Causes;

/// <summary>
/// The usual defaults of a cause: time in milliseconds, seen by events, the app's own cost. A cause
/// states its name, kind and scope, overrides what differs, and measures.
/// </summary>
internal abstract class CauseBase(string name) : ICause
{
    public string Name { get; } = name;

    public abstract CauseKind Kind { get; }

    public abstract CauseScope Scope { get; }

    public virtual CauseUnit Unit => CauseUnit.Milliseconds;

    public virtual bool IsEventBased => true;

    public virtual bool IsMeasurement => false;

    public bool IsGc => Kind == CauseKind.GcPause;

    public virtual bool ShowsAThreadHeld => true;

    public virtual CauseGroup Group => CauseGroup.None;

    public abstract double Measure(in RequestRecord request, int requestIndex, RequestPart part, double from, double to);

    public override string ToString() => Name;
}
