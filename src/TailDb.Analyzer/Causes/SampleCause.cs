using TailDb.Analyzer.Computers;

namespace TailDb.Analyzer.Causes;

/// <summary>
/// CPU samples of one category on the request's thread, each standing for one sampling interval:
/// inferred, not seen by events. Samples in tracing code are the measurement's own cost.
/// </summary>
internal sealed class SampleCause(SampleCategory category, SampleClassifier classifier)
    : CauseBase(NameOf(category))
{
    /// <summary>The cause's name for a category, as reports print it.</summary>
    public static string NameOf(SampleCategory category) => $"samples: {SampleComputer.CategoryName(category)}";

    public SampleCategory Category { get; } = category;

    public override CauseKind Kind => Category == SampleCategory.Tracing ? CauseKind.TracingSamples : CauseKind.Samples;

    public override CauseScope Scope => CauseScope.Thread;

    public override bool IsEventBased => false;

    public override bool IsMeasurement => Kind == CauseKind.TracingSamples;

    /// <summary>The kernel's fault code on the CPU is one part of the page faults' time (<see cref="OffCpuInFaultCause"/> the rest).</summary>
    public override CauseGroup Group => Category == SampleCategory.PageFault ? CauseGroup.PageFaults : CauseGroup.None;

    /// <summary>Samples of a stopped thread (waiting, a lock, file I/O) show it held; samples of a running
    /// thread do not: a thread the OS preempted shows its app code tick after tick.</summary>
    public override bool ShowsAThreadHeld => !SampleComputer.IsRunning(Category);

    public override double Measure(in RequestRecord request, int requestIndex, RequestPart part, double from, double to) =>
        classifier.Milliseconds(request.ThreadId, from, to, Category);

    /// <summary>One cause per category but the safe point's (decided per sample, by time: <see cref="SampleClassifier.CauseOf"/>).</summary>
    public static IEnumerable<ICause> From(CauseInputs inputs)
    {
        ArgumentNullException.ThrowIfNull(inputs);
        if (inputs.Classifier is not { } classifier)
        {
            yield break;
        }

        foreach (var category in Enum.GetValues<SampleCategory>())
        {
            if (category != SampleCategory.SafePoint)
            {
                yield return new SampleCause(category, classifier);
            }
        }
    }
}
