using System.Diagnostics;
using System.Globalization;

namespace TailDb.LoadTest.Harness;

/// <summary>
/// One running worker. Disposing it kills the process if it is still alive, so no exit path of the
/// harness leaves an orphan; the worker also exits by itself when its stdin closes.
/// </summary>
public sealed class WorkerProcess : IDisposable
{
    private const int StderrLinesKept = 40;

    private readonly Process _process;
    private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly Queue<string> _stderr = new();
    private readonly Action<WorkerProgress>? _onProgress;
    private readonly Action<string>? _onPhase;

    private WorkerProcess(Process process, Action<WorkerProgress>? onProgress, Action<string>? onPhase)
    {
        _process = process;
        _onProgress = onProgress;
        _onPhase = onPhase;
    }

    public int Id => _process.Id;

    public bool HasExited => _process.HasExited;

    public int ExitCode => _process.ExitCode;

    /// <summary>Completes when the process has exited.</summary>
    public Task Exited => _process.WaitForExitAsync();

    /// <summary>Completes when the worker says its result file is written.</summary>
    public Task Done => _done.Task;

    public static WorkerProcess Start(ProcessStartInfo startInfo, Action<WorkerProgress>? onProgress = null, Action<string>? onPhase = null)
    {
        var process = new Process { StartInfo = startInfo, EnableRaisingEvents = true };
        var worker = new WorkerProcess(process, onProgress, onPhase);
        process.OutputDataReceived += (_, e) => worker.OnOutput(e.Data);
        process.ErrorDataReceived += (_, e) => worker.OnError(e.Data);
        process.Start();
        process.BeginOutputReadLine();
        process.BeginErrorReadLine();
        return worker;
    }

    /// <summary>The first line of what the worker wrote on stderr that says what went wrong.</summary>
    public string? ErrorSummary()
    {
        lock (_stderr)
        {
            return _stderr.FirstOrDefault(l => l.StartsWith("Unhandled exception", StringComparison.Ordinal))
                ?? _stderr.FirstOrDefault(l => !string.IsNullOrWhiteSpace(l));
        }
    }

    public string StandardError()
    {
        lock (_stderr)
        {
            return string.Join(Environment.NewLine, _stderr);
        }
    }

    /// <summary>Closes the worker's stdin: "stop now" before it is done, "exit" after.</summary>
    public void CloseInput()
    {
        try
        {
            _process.StandardInput.Close();
        }
        catch (Exception e) when (e is IOException or InvalidOperationException)
        {
            // Already gone.
        }
    }

    public async Task<bool> WaitForExitAsync(TimeSpan limit)
    {
        try
        {
            await _process.WaitForExitAsync().WaitAsync(limit).ConfigureAwait(false);
            return true;
        }
        catch (TimeoutException)
        {
            return false;
        }
    }

    public void Kill()
    {
        try
        {
            if (!_process.HasExited)
            {
                _process.Kill(entireProcessTree: true);
                _process.WaitForExit(5000);
            }
        }
        catch (Exception e) when (e is InvalidOperationException or System.ComponentModel.Win32Exception)
        {
            // Exited meanwhile.
        }
    }

    public void Dispose()
    {
        Kill();
        _process.Dispose();
    }

    private void OnOutput(string? line)
    {
        if (line is null)
        {
            return;
        }

        if (line == WorkerProtocol.Done)
        {
            _done.TrySetResult();
        }
        else if (line.StartsWith(WorkerProtocol.PhasePrefix, StringComparison.Ordinal))
        {
            _onPhase?.Invoke(line[WorkerProtocol.PhasePrefix.Length..]);
        }
        else if (line.StartsWith(WorkerProtocol.ProgressPrefix, StringComparison.Ordinal) && _onProgress is not null)
        {
            string[] parts = line[WorkerProtocol.ProgressPrefix.Length..].Split(' ');
            if (parts.Length == 3
                && double.TryParse(parts[0], NumberStyles.Float, CultureInfo.InvariantCulture, out double seconds)
                && long.TryParse(parts[1], CultureInfo.InvariantCulture, out long operations)
                && long.TryParse(parts[2], CultureInfo.InvariantCulture, out long p99))
            {
                _onProgress(new WorkerProgress(TimeSpan.FromSeconds(seconds), operations, p99));
            }
        }
    }

    private void OnError(string? line)
    {
        if (line is null)
        {
            return;
        }

        lock (_stderr)
        {
            // The first lines say what went wrong; a long stack trace's tail does not.
            if (_stderr.Count < StderrLinesKept)
            {
                _stderr.Enqueue(line);
            }
        }
    }
}

/// <summary>A worker's progress line: elapsed measured time, requests so far, running corrected p99 (ns).</summary>
public readonly record struct WorkerProgress(TimeSpan Elapsed, long Operations, long P99Nanoseconds);
