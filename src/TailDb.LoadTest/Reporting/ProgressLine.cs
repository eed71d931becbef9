using System.Globalization;
using TailDb.LoadTest.Harness;

namespace TailDb.LoadTest.Reporting;

/// <summary>A single self-overwriting status line on stderr; only used when stderr is a terminal.</summary>
public sealed class ProgressLine
{
    private readonly TextWriter _error;
    private readonly Lock _lock = new();
    private int _width;

    public ProgressLine(TextWriter error) => _error = error;

    public void Show(string mode, WorkerProgress progress, double durationSeconds)
    {
        double seconds = Math.Max(progress.Elapsed.TotalSeconds, 1e-3);
        Show(string.Create(CultureInfo.InvariantCulture,
            $"{mode}: {progress.Elapsed.TotalSeconds:0}/{durationSeconds:0} s  {progress.Operations / seconds:N0} req/s  p99 {ReportRenderer.Milliseconds(progress.P99Nanoseconds)} ms"));
    }

    public void Show(string text)
    {
        lock (_lock)
        {
            _error.Write('\r' + text.PadRight(_width));
            _width = text.Length;
            _error.Flush();
        }
    }

    public void Clear()
    {
        lock (_lock)
        {
            _error.Write('\r' + new string(' ', _width) + '\r');
            _width = 0;
            _error.Flush();
        }
    }
}
