using System.Diagnostics;
using Microsoft.Diagnostics.NETCore.Client;
using TailDb.LoadTest.Recording;

namespace TailDb.Analyzer.Tests.TraceGen.Recording;

/// <summary>
/// Starts this program as a child in one of its workload modes, suspended at startup
/// (DOTNET_DefaultDiagnosticPortSuspend=1) so the trace holds everything from its first
/// instruction, and records it with the one provider list the load test uses (samples on).
/// The child waits on its stdin after the workload, so Stop can still get the rundown.
/// It does not use the shared EventPipeRecorder: its wait for the diagnostic port calls
/// DiagnosticsClient.GetPublishedProcesses, which in NETCore.Client 0.2.745401 reads
/// /proc/N/environ of every process and throws on this machine's kernel threads ("No such
/// process: /proc/2/environ"). Here the wait looks for the child's own socket instead.
/// </summary>
public sealed class ChildRecording : IAsyncDisposable
{
    private readonly Process _child;
    private readonly EventPipeSession _session;
    private readonly FileStream _file;
    private readonly Task _copy;
    private bool _stopped;

    private ChildRecording(Process child, EventPipeSession session, FileStream file)
    {
        _child = child;
        _session = session;
        _file = file;
        _copy = Task.Run(() => session.EventStream.CopyToAsync(file));
    }

    public string TracePath => _file.Name;

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
            await WaitForDiagnosticSocketAsync(child, TimeSpan.FromSeconds(30));
            var client = new DiagnosticsClient(child.Id);
            var session = await client.StartEventPipeSessionAsync(RecordingProviders.Create(samples: true), requestRundown: true, circularBufferMB: 256);
            var file = new FileStream(tracePath, FileMode.Create, FileAccess.Write, FileShare.Read, 1 << 20, FileOptions.Asynchronous);
            var recording = new ChildRecording(child, session, file);
            client.ResumeRuntime();
            return recording;
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

        var bytes = await StopAsync(limit);
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
        return await StopAsync(limit);
    }

    private async Task<long> StopAsync(TimeSpan limit)
    {
        if (!_stopped)
        {
            _stopped = true;
            if (!_child.HasExited)
            {
                await _session.StopAsync(CancellationToken.None).WaitAsync(limit);
            }

            await _copy.WaitAsync(limit);
            await _file.FlushAsync();
        }

        return _file.Length;
    }

    private static async Task WaitForDiagnosticSocketAsync(Process child, TimeSpan limit)
    {
        var deadline = DateTime.UtcNow + limit;
        var pattern = $"dotnet-diagnostic-{child.Id}-*-socket";
        while (Directory.GetFiles(Path.GetTempPath(), pattern).Length == 0)
        {
            if (child.HasExited || DateTime.UtcNow > deadline)
            {
                throw new InvalidOperationException($"process {child.Id} opened no diagnostic port within {limit.TotalSeconds:0} s");
            }

            await Task.Delay(20);
        }
    }

    public async ValueTask DisposeAsync()
    {
        if (!_child.HasExited)
        {
            _child.Kill();
        }

        _session.Dispose();
        try
        {
            await _copy;
        }
        catch (Exception e) when (e is IOException or ObjectDisposedException or OperationCanceledException)
        {
            // Disposed without a stop: the stream was cut, which is what a truncated trace is.
        }

        await _file.DisposeAsync();
        _child.Dispose();
    }

    // Under `dotnet test` the SDK says which host runs us; a plain `dotnet` works elsewhere.
    private static string HostPath() => Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") is { Length: > 0 } host ? host : "dotnet";
}
