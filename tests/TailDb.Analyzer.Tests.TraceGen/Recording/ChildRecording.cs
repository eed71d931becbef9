using System.Diagnostics;
using TailDb.Tracing.Recording;

namespace TailDb.Analyzer.Tests.TraceGen.Recording;

/// <summary>
/// Starts this program as a child in one of its workload modes through TailDb.Tracing's one child
/// launcher (suspended on a reversed diagnostic port, so the trace holds everything from its first
/// instruction), with the one provider list the load test uses (samples on). The child waits on its stdin after the workload, so the session
/// can still be stopped, and the rundown written, while it is alive.
/// </summary>
public sealed class ChildRecording : IAsyncDisposable
{
    private readonly RecordedChild _recorded;

    private ChildRecording(RecordedChild recorded)
    {
        _recorded = recorded;
    }

    public string TracePath => _recorded.Recorder.Path;

    private Process Child => _recorded.Process;

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

        var options = new RecordingOptions(RecordingProviders.Create(samples: true));
        return new ChildRecording(await RecordedChild.StartAsync(start, tracePath, options, TimeSpan.FromSeconds(60)));
    }

    /// <summary>Waits for the workload to say it is done, then stops the session (rundown
    /// included), lets the child exit and returns the trace's size in bytes.</summary>
    public async Task<long> CompleteAsync(TimeSpan limit)
    {
        using var timeout = new CancellationTokenSource(limit);
        await ReadUntilAsync(Program.DoneLine, timeout.Token);

        var bytes = await _recorded.StopAsync(limit);
        Child.StandardInput.Close();
        await Child.WaitForExitAsync(timeout.Token);
        return bytes;
    }

    /// <summary>Kills the child mid-workload (no rundown is ever written) and returns the
    /// size of what the stream held.</summary>
    /// <param name="afterLine">When given, <paramref name="after"/> counts from when the workload says this line.</param>
    public async Task<long> KillAsync(TimeSpan after, TimeSpan limit, string? afterLine = null)
    {
        if (afterLine is not null)
        {
            using var timeout = new CancellationTokenSource(limit);
            await ReadUntilAsync(afterLine, timeout.Token);
        }

        await Task.Delay(after);
        Child.Kill();
        await Child.WaitForExitAsync();
        return await _recorded.StopAsync(limit);
    }

    public ValueTask DisposeAsync() => _recorded.DisposeAsync();

    private async Task ReadUntilAsync(string expected, CancellationToken cancellationToken)
    {
        string? line;
        do
        {
            line = await Child.StandardOutput.ReadLineAsync(cancellationToken);
        }
        while (line is not null && line != expected && line == Program.BurningLine);

        if (line != expected)
        {
            throw new InvalidOperationException($"the workload said '{line}' instead of '{expected}'");
        }
    }

    // Under `dotnet test` the SDK says which host runs us; a plain `dotnet` works elsewhere.
    private static string HostPath() => Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") is { Length: > 0 } host ? host : "dotnet";
}
