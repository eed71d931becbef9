using System.Diagnostics;
using TailDb.Tracing.Recording;

namespace TailDb.LoadTest.Harness;

/// <summary>
/// The command line and environment a worker gets: `dotnet exec --runtimeconfig &lt;mode file&gt;
/// &lt;this assembly&gt; worker --spec &lt;file&gt;`, with every GC environment variable removed because
/// since .NET 9 they override the runtimeconfig (a stray DOTNET_gcServer=1 would silently turn
/// every mode into server GC).
/// </summary>
public static class WorkerLaunch
{
    /// <param name="command">The hidden command the child runs: the harness's worker, or the fan-out scenario's client.</param>
    public static ProcessStartInfo Create(GcMode mode, string specPath, string? assemblyPath = null, string command = WorkerProtocol.CommandName)
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
        startInfo.ArgumentList.Add(command);
        startInfo.ArgumentList.Add("--spec");
        startInfo.ArgumentList.Add(specPath);

        RemoveInherited(startInfo.Environment);
        return startInfo;
    }

    /// <summary>
    /// Removes what the worker must not inherit: every GC variable, and any diagnostic-port suspend
    /// (it would make an untraced worker wait forever for a session; a traced one is suspended on
    /// its own port by <see cref="DiagnosticPortListener.Configure"/>).
    /// </summary>
    public static void RemoveInherited(IDictionary<string, string?> environment)
    {
        ArgumentNullException.ThrowIfNull(environment);
        GcLaunch.RemoveGcVariables(environment);
        environment.Remove(DiagnosticPortListener.DefaultSuspendVariable);
        environment.Remove(DiagnosticPortListener.PortsVariable);
    }

    /// <summary>DOTNET_GC* and COMPlus_GC*, in any letter case (the runtime reads them case-insensitively).</summary>
    public static bool IsGcVariable(string name) => GcLaunch.IsGcVariable(name);

    /// <summary>The `dotnet` host running this process, so the worker gets the same runtime install.</summary>
    public static string DotnetHostPath() => GcLaunch.DotnetHostPath();
}
