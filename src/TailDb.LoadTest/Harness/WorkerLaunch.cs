using System.Diagnostics;
using System.Runtime.InteropServices;
using TailDb.LoadTest.GcModes;

namespace TailDb.LoadTest.Harness;

/// <summary>
/// The command line and environment a worker gets: `dotnet exec --runtimeconfig &lt;mode file&gt;
/// &lt;this assembly&gt; worker --spec &lt;file&gt;`, with every GC environment variable removed because
/// since .NET 9 they override the runtimeconfig (a stray DOTNET_gcServer=1 would silently turn
/// every mode into server GC).
/// </summary>
public static class WorkerLaunch
{
    public const string SuspendVariable = "DOTNET_DefaultDiagnosticPortSuspend";

    private static readonly string[] RemovedPrefixes = ["DOTNET_GC", "COMPlus_GC"];

    public static ProcessStartInfo Create(GcMode mode, string specPath, bool suspendForTrace, string? assemblyPath = null)
    {
        var startInfo = new ProcessStartInfo(DotnetHostPath())
        {
            UseShellExecute = false,
            RedirectStandardInput = true,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
        };
        startInfo.ArgumentList.Add("exec");
        startInfo.ArgumentList.Add("--runtimeconfig");
        startInfo.ArgumentList.Add(mode.RuntimeConfigPath);
        startInfo.ArgumentList.Add(assemblyPath ?? typeof(WorkerLaunch).Assembly.Location);
        startInfo.ArgumentList.Add(WorkerProtocol.CommandName);
        startInfo.ArgumentList.Add("--spec");
        startInfo.ArgumentList.Add(specPath);

        foreach (string name in startInfo.Environment.Keys.Where(IsGcVariable).ToList())
        {
            startInfo.Environment.Remove(name);
        }

        startInfo.Environment.Remove(SuspendVariable);
        if (suspendForTrace)
        {
            // The runtime opens its diagnostic port and waits for ResumeRuntime before running any
            // managed code, so the trace session sees the first request (and the JIT of everything).
            startInfo.Environment[SuspendVariable] = "1";
        }

        return startInfo;
    }

    /// <summary>DOTNET_GC* and COMPlus_GC*, in any letter case (the runtime reads them case-insensitively).</summary>
    public static bool IsGcVariable(string name) =>
        RemovedPrefixes.Any(prefix => name.StartsWith(prefix, StringComparison.OrdinalIgnoreCase));

    /// <summary>The `dotnet` host running this process, so the worker gets the same runtime install.</summary>
    public static string DotnetHostPath()
    {
        string executable = RuntimeInformation.IsOSPlatform(OSPlatform.Windows) ? "dotnet.exe" : "dotnet";
        if (Environment.ProcessPath is { } self && Path.GetFileName(self).Equals(executable, StringComparison.OrdinalIgnoreCase))
        {
            return self;
        }

        if (Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") is { Length: > 0 } hostPath && File.Exists(hostPath))
        {
            return hostPath;
        }

        // <root>/shared/Microsoft.NETCore.App/<version>/ -> <root>/dotnet
        string root = Path.GetFullPath(Path.Combine(RuntimeEnvironment.GetRuntimeDirectory(), "..", "..", ".."));
        string candidate = Path.Combine(root, executable);
        return File.Exists(candidate) ? candidate : executable;
    }
}
