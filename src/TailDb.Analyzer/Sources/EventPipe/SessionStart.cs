using System.Diagnostics;
using Microsoft.Diagnostics.NETCore.Client;

namespace TailDb.Analyzer.Sources.EventPipe;

/// <summary>
/// How `record` and `watch` start their EventPipe session, and the one line each failure becomes:
/// attaching to a running process, or launching a command through TailDb.Tracing's RecordedChild.
/// </summary>
internal static class SessionStart
{
    /// <summary>Runs <paramref name="attach"/>; a process with no diagnostic port to talk to is exit RecordingFailed.</summary>
    public static async Task<T> AttachAsync<T>(string command, int pid, Func<Task<T>> attach)
    {
        ArgumentNullException.ThrowIfNull(attach);
        try
        {
            return await attach();
        }
        catch (Exception e) when (e is TimeoutException or ServerNotAvailableException or UnsupportedCommandException or IOException or UnauthorizedAccessException)
        {
            throw new AnalyzerException(ExitCode.RecordingFailed, $"{command}: cannot start a session in process {pid}: {e.Message}", e);
        }
    }

    /// <summary>Runs <paramref name="launch"/> on the command line after --; a program that cannot start or connect is exit RecordingFailed.</summary>
    public static async Task<T> LaunchAsync<T>(string command, IReadOnlyList<string> program, Func<ProcessStartInfo, Task<T>> launch)
    {
        ArgumentNullException.ThrowIfNull(program);
        ArgumentNullException.ThrowIfNull(launch);
        var start = new ProcessStartInfo(program[0]) { UseShellExecute = false };
        for (var i = 1; i < program.Count; i++)
        {
            start.ArgumentList.Add(program[i]);
        }

        try
        {
            return await launch(start);
        }
        catch (Exception e) when (e is InvalidOperationException or TimeoutException or ServerNotAvailableException or UnsupportedCommandException or IOException)
        {
            throw new AnalyzerException(ExitCode.RecordingFailed, $"{command}: could not launch {program[0]}: {e.Message}", e);
        }
    }
}
