namespace TailDb.Analyzer.Computers;

/// <summary>A span of time on one thread (or, for process-wide windows, on every thread).</summary>
/// <param name="Tag">What the window is about: a generation, a reason, a method name index.</param>
internal readonly record struct TimeWindow(double StartMSec, double StopMSec, int ThreadId, int Tag)
{
    public double DurationMSec => StopMSec - StartMSec;
}

/// <summary>An instant on one thread: an exception thrown, a thread-pool starvation signal.</summary>
internal readonly record struct TimePoint(double TimeMSec, int ThreadId, int Tag);
