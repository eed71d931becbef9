namespace TailDb.Analyzer.Pictures;

// What the HTML report draws, beside the report model: per-request dots, pauses, a heatmap and
// a flame tree. Times are trace milliseconds rounded to microseconds; arrays are parallel.

/// <summary>Request dots: every slow request, and the others thinned to a budget (see <see cref="Sampling"/>).</summary>
/// <param name="Queue">Each dot's queue part (arrival to Start) when requests carry their arrival, else null:
/// drawn apart, so a pile-up of queued requests after a pause shows.</param>
internal sealed record RequestDots(double[] Start, double[] Duration, double[]? Queue = null);

/// <summary>A phase the load test marked (fill, warm-up, measured), drawn as a boundary on the timeline.</summary>
internal sealed record PhaseMark(string Name, double StartMs, double StopMs);

/// <summary>Windows that are not requests (GC pauses, suspensions, contention, file reads). Kind: GC generation,
/// suspension reason, or the thread, by list.</summary>
internal sealed record PictureWindows(double[] Start, double[] Duration, int[] Kind, int Total, string Kept);

/// <summary>Counts of all requests per time slice (columns) and log-latency row.</summary>
internal sealed record Heatmap(double SliceMs, double[] RowBoundsMs, int[][] Counts);

/// <summary>One frame of the merged flame tree: time in the slow windows and in the whole run.
/// Stored as arrays for size: Name (index into <see cref="PictureData.Names"/>), SlowMs, WholeMs, Children.</summary>
internal sealed record FlameNode(int Name, double SlowMs, double WholeMs, List<FlameNode> Children);

/// <summary>One listed slow request and what its window held (window ± <see cref="PictureBuilder.MarginMs"/>).</summary>
internal sealed record RequestView(
    int Rank, string Activity, double StartMs, double DurationMs, double? QueueMs, int ThreadId, IReadOnlyDictionary<string, string> Fields,
    double FromMs, double ToMs, PictureWindows Gc, PictureWindows Suspensions, PictureWindows Contention, PictureWindows FileReads, double[] SampleTimes, int[] SampleFrames);

internal sealed record PictureData(
    double DurationMs, double ThresholdMs, long Requests, long SlowRequests, string Sampling, RequestDots Slow, RequestDots Rest,
    PictureWindows Gc, PictureWindows Suspensions, PictureWindows Contention, Heatmap Heatmap, double SampleIntervalMs, FlameNode Flame, double SlowFlameMs,
    double WholeFlameMs, string FlameBasis, IReadOnlyList<RequestView> Views, IReadOnlyList<string> Names, IReadOnlyList<PhaseMark>? Phases = null);

/// <summary>What a timeline alone draws (the compare page draws two): a <see cref="PictureData"/> without heatmap, flames and views.</summary>
internal sealed record TimelinePicture(
    double DurationMs, double ThresholdMs, long Requests, long SlowRequests, string Sampling, RequestDots Slow, RequestDots Rest,
    PictureWindows Gc, PictureWindows Suspensions, PictureWindows Contention, IReadOnlyList<PhaseMark>? Phases = null)
{
    public static TimelinePicture Of(PictureData pictures)
    {
        ArgumentNullException.ThrowIfNull(pictures);
        return new TimelinePicture(pictures.DurationMs, pictures.ThresholdMs, pictures.Requests, pictures.SlowRequests, pictures.Sampling,
            pictures.Slow, pictures.Rest, pictures.Gc, pictures.Suspensions, pictures.Contention, pictures.Phases);
    }
}
