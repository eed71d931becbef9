using System.Diagnostics;
using Microsoft.Diagnostics.NETCore.Client;
using TailDb.LoadTest.Recording;

namespace TailDb.Analyzer.Tests.Recording;

/// <summary>
/// Runs the ground-truth workload as a child, suspended until the session starts, records it
/// with the given providers, and stops the session (rundown included) before letting it exit.
/// </summary>
internal static class WorkloadRecording
{
    public static async Task RecordAsync(string tracePath, IReadOnlyList<EventPipeProvider> providers, params string[] workloadArgs)
    {
        var workload = Path.Combine(AppContext.BaseDirectory, "TailDb.Analyzer.Tests.Workload.dll");
        var start = new ProcessStartInfo(Environment.ProcessPath ?? "dotnet")
        {
            RedirectStandardInput = true,
            RedirectStandardOutput = true,
            UseShellExecute = false,
        };
        if (!Path.GetFileNameWithoutExtension(start.FileName).Equals("dotnet", StringComparison.OrdinalIgnoreCase))
        {
            start.FileName = "dotnet";
        }

        start.ArgumentList.Add("exec");
        start.ArgumentList.Add(workload);
        foreach (var arg in workloadArgs)
        {
            start.ArgumentList.Add(arg);
        }

        start.ArgumentList.Add("--wait-stdin");
        start.Environment["DOTNET_DefaultDiagnosticPortSuspend"] = "1";
        using var child = Process.Start(start) ?? throw new InvalidOperationException("could not start the workload");
        try
        {
            await using var recorder = await EventPipeRecorder.StartAsync(child.Id, tracePath, providers, resumeRuntime: true, bufferMegabytes: 64);
            var line = await child.StandardOutput.ReadLineAsync().WaitAsync(TimeSpan.FromSeconds(90));
            if (line is null || !line.StartsWith("done", StringComparison.Ordinal))
            {
                throw new InvalidOperationException($"workload said '{line}' instead of done");
            }

            await recorder.StopAsync(TimeSpan.FromSeconds(60));
            child.StandardInput.WriteLine();
            child.StandardInput.Close();
            await child.WaitForExitAsync().WaitAsync(TimeSpan.FromSeconds(30));
        }
        finally
        {
            if (!child.HasExited)
            {
                child.Kill(entireProcessTree: true);
            }
        }
    }
}
