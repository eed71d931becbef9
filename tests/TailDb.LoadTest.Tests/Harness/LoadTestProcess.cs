using System.Diagnostics;
using TailDb.LoadTest.Harness;

namespace TailDb.LoadTest.Tests.Harness;

/// <summary>Runs the load test as the user does (`dotnet TailDb.LoadTest.dll ...`) and captures what it printed.</summary>
public sealed record LoadTestProcess(int ExitCode, string Stdout, string Stderr)
{
    /// <summary>Short enough to keep the suite fast, long enough for a few GCs.</summary>
    public static readonly string[] ShortRun = ["--duration", "1", "--warmup", "0.5", "--keys", "2000", "--rate", "2000"];

    public static Process StartHarness(IEnumerable<string> args, IDictionary<string, string>? environment = null)
    {
        var startInfo = new ProcessStartInfo(WorkerLaunch.DotnetHostPath())
        {
            UseShellExecute = false,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            RedirectStandardInput = true,
        };
        startInfo.ArgumentList.Add(typeof(ExitCode).Assembly.Location);
        foreach (string arg in args)
        {
            startInfo.ArgumentList.Add(arg);
        }

        foreach (var (name, value) in environment ?? new Dictionary<string, string>())
        {
            startInfo.Environment[name] = value;
        }

        return Process.Start(startInfo)!;
    }

    public static async Task<LoadTestProcess> RunAsync(IEnumerable<string> args, IDictionary<string, string>? environment = null, int timeoutSeconds = 120)
    {
        using var process = StartHarness(args, environment);
        return await CollectAsync(process, timeoutSeconds);
    }

    public static async Task<LoadTestProcess> CollectAsync(Process process, int timeoutSeconds = 120)
    {
        Task<string> stdout = process.StandardOutput.ReadToEndAsync();
        Task<string> stderr = process.StandardError.ReadToEndAsync();
        using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(timeoutSeconds));
        try
        {
            await process.WaitForExitAsync(timeout.Token);
        }
        catch (OperationCanceledException)
        {
            process.Kill(entireProcessTree: true);
            throw new TimeoutException($"load test did not finish in {timeoutSeconds} s: {await stdout} {await stderr}");
        }

        return new LoadTestProcess(process.ExitCode, await stdout, await stderr);
    }

    /// <summary>The single line a user-facing failure prints: no stack trace, no help text.</summary>
    public string OneErrorLine()
    {
        string[] lines = Stderr.Split('\n', StringSplitOptions.RemoveEmptyEntries);
        Assert.True(lines.Length == 1, $"expected one line on stderr, got:\n{Stderr}");
        Assert.StartsWith("error: ", lines[0], StringComparison.Ordinal);
        return lines[0];
    }
}

[CollectionDefinition(Name, DisableParallelization = true)]
public sealed class WorkerProcessesGroup
{
    // Worker processes measure latency: running them beside each other on 2 cores would only add noise and time.
    public const string Name = "worker processes";
}
