using System.Diagnostics;
using TailDb.LoadTest.Recording;

namespace TailDb.Analyzer.Tests.TraceGen.Recording;

/// <summary>
/// Starts this program as a child in one of its workload modes, suspended at startup
/// (DOTNET_DefaultDiagnosticPortSuspend=1) so the trace holds everything from its first
/// instruction, and records it with the shared EventPipeRecorder and the one provider list the
/// load test uses (samples on). The child waits on its stdin after the workload, so the session
/// can still be stopped, and the rundown written, while it is alive.
/// </summary>
public sealed class ChildRecording : IAsyncDisposable
{
    private readonly Process _child;
    private readonly EventPipeRecorder _recorder;

    private ChildRecording(Process child, EventPipeRecorder recorder)
    {
        _child = child;
        _recorder = recorder;
    }

    public string TracePath => _recorder.Path;

    public static async Task<ChildRecording> StartAsync(string tracePath, params string[] workloadArgs)
    {
        var start = new ProcessStartInfo(HostPath())
        {
            RedirectStandardInput = true,
            RedirectStandardOutput = true,
            UseShellExecute = false,
        };
        start.ArgumentList.Add("exec");
        start.ArgumentList.Add(typeof(ChildRecording).Assembly.Location);
        foreach (var arg in workloadArgs)
        {
            start.ArgumentList.Add(arg);
        }

        start.Environment["DOTNET_DefaultDiagnosticPortSuspend"] = "1";
        var child = Process.Start(start) ?? throw new InvalidOperationException("the workload process did not start");
        try
        {
            var recorder = await EventPipeRecorder.StartAsync(child.Id, tracePath, RecordingProviders.Create(samples: true), resumeRuntime: true);
            return new ChildRecording(child, recorder);
        }
        catch
        {
            child.Kill();
            child.Dispose();
            throw;
        }
    }

    /// <summary>Waits for the workload to say it is done, then stops the session (rundown
    /// included), lets the child exit and returns the trace's size in bytes.</summary>
    public async Task<long> CompleteAsync(TimeSpan limit)
    {
        using var timeout = new CancellationTokenSource(limit);
        var line = await _child.StandardOutput.ReadLineAsync(timeout.Token);
        if (line != Program.DoneLine)
        {
            throw new InvalidOperationException($"the workload said '{line}' instead of '{Program.DoneLine}'");
        }

        var bytes = await _recorder.StopAsync(limit);
        _child.StandardInput.Close();
        await _child.WaitForExitAsync(timeout.Token);
        return bytes;
    }

    /// <summary>Kills the child mid-workload (no rundown is ever written) and returns the
    /// size of what the stream held.</summary>
    public async Task<long> KillAsync(TimeSpan after, TimeSpan limit)
    {
        await Task.Delay(after);
        _child.Kill();
        await _child.WaitForExitAsync();
        return await _recorder.StopAsync(limit);
    }

    public async ValueTask DisposeAsync()
    {
        if (!_child.HasExited)
        {
            _child.Kill();
        }

        await _recorder.DisposeAsync();
        _child.Dispose();
    }

    // Under `dotnet test` the SDK says which host runs us; a plain `dotnet` works elsewhere.
    private static string HostPath() => Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") is { Length: > 0 } host ? host : "dotnet";
}
