using System.ComponentModel;
using System.Diagnostics;
using System.Globalization;
using TailDb.Analyzer.Computers;
using TailDb.Analyzer.Sources;
using TailDb.Cli;
using TailDb.GcModes;

namespace TailDb.Analyzer.Watch;

/// <summary>
/// Runs a capture's `slowest` report in a child process: this analyzer's own assembly with the
/// hidden `capture-report` command, which writes the .txt and .json next to the capture and prints
/// the verdict. The analysis of a capture as large as the ring takes several times its size in
/// memory (about 9x: 600 MB for a 64 MiB capture), so in the watch process it would break the
/// bound of --max-bytes plus a constant. Run at below-normal priority (it is upkeep: the watched
/// process's requests come first), killed past the timeout. Any failure, from a missing runtime to
/// a timeout, comes back as the verdict ("report failed: …"), never as an exception.
/// </summary>
internal static class ReportChild
{
    public const string FailedPrefix = "report failed: ";

    private const string NicePath = "/usr/bin/nice";
    private const int NiceLevel = 10;

    /// <summary>The child's managed heap limit per byte of capture (its analysis takes about 6-9x), plus <see cref="HeapLimitBaseBytes"/>.</summary>
    public const int HeapLimitPerCaptureByte = 16;

    public const long HeapLimitBaseBytes = 512L << 20;

    /// <summary>
    /// The report child's GC heap hard limit for a capture of <paramref name="captureBytes"/>: a
    /// capture the analysis cannot fit in it ends in "report failed" (its OutOfMemoryException),
    /// never in the machine's memory running out under the watched service.
    /// </summary>
    public static long HeapLimitFor(long captureBytes) => HeapLimitBaseBytes + (HeapLimitPerCaptureByte * Math.Max(0, captureBytes));

    public static async Task<string> RunAsync(string capturePath, Trigger trigger, RequestSelection selection, TimeSpan timeout)
    {
        ArgumentNullException.ThrowIfNull(trigger);
        var start = StartInfo(Arguments(capturePath, trigger, selection), HeapLimitFor(CaptureBytes(capturePath)));
        using var process = new Process { StartInfo = start };
        try
        {
            process.Start();
        }
        catch (Exception e) when (e is Win32Exception or InvalidOperationException)
        {
            return $"{FailedPrefix}{start.FileName} did not start: {e.Message}";
        }

        LowerPriority(process);
        var stdout = process.StandardOutput.ReadToEndAsync(CancellationToken.None);
        var stderr = process.StandardError.ReadToEndAsync(CancellationToken.None);
        using var deadline = new CancellationTokenSource(timeout);
        try
        {
            await process.WaitForExitAsync(deadline.Token).ConfigureAwait(false);
        }
        catch (OperationCanceledException)
        {
            await KillAsync(process).ConfigureAwait(false);
            RemovePartial(capturePath);
            return string.Create(CultureInfo.InvariantCulture, $"{FailedPrefix}no result within {timeout.TotalSeconds:0.###} s (the capture is whole: `TailDb.Analyzer slowest {capturePath}`)");
        }

        var output = await stdout.ConfigureAwait(false);
        var error = await stderr.ConfigureAwait(false);
        if (process.ExitCode != 0)
        {
            RemovePartial(capturePath);
            return $"{FailedPrefix}exit {process.ExitCode}: {FirstLine(error) ?? "no message"}";
        }

        return LastLine(output) is { } verdict ? verdict : $"{FailedPrefix}the report printed no verdict";
    }

    /// <summary>
    /// How to start this analyzer again, wherever it runs from: `dotnet run` and a built or installed
    /// tool run TailDb.Analyzer.dll (its runtimeconfig beside it), and so do the tests, from their own
    /// output folder where the build copies it; `dotnet exec` of that dll with the host running this
    /// process. A single-file build has no dll location: the executable itself.
    /// </summary>
    internal static ProcessStartInfo StartInfo(IEnumerable<string> arguments, long heapLimitBytes)
    {
        var assembly = typeof(ReportChild).Assembly.Location;
        List<string> command = assembly.Length == 0
            ? [Environment.ProcessPath ?? "TailDb.Analyzer"]
            : [GcLaunch.DotnetHostPath(), "exec", assembly];

        // On Linux a nice value set after the start would reach only the threads created after it: `nice` starts it niced.
        if (OperatingSystem.IsLinux() && File.Exists(NicePath))
        {
            command.InsertRange(0, [NicePath, "-n", $"{NiceLevel}"]);
        }

        var start = new ProcessStartInfo(command[0])
        {
            UseShellExecute = false,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
        };
        foreach (var argument in command.Skip(1).Concat(arguments))
        {
            start.ArgumentList.Add(argument);
        }

        // Were the watch itself started under a suspending diagnostic port, the report would wait on it forever.
        start.Environment.Remove("DOTNET_DiagnosticPorts");
        start.Environment["DOTNET_GCHeapHardLimit"] = heapLimitBytes.ToString("X", CultureInfo.InvariantCulture);
        return start;
    }

    private static long CaptureBytes(string capturePath)
    {
        try
        {
            return new FileInfo(capturePath).Length;
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return 0; // The child reports the unreadable file itself.
        }
    }

    /// <summary>The hidden command the child runs (Commands/CaptureReportCommand reads these arguments).</summary>
    public const string CommandName = "capture-report";

    internal static List<string> Arguments(string capturePath, Trigger trigger, RequestSelection selection)
    {
        ArgumentNullException.ThrowIfNull(selection);
        var arguments = new List<string>
        {
            CommandName, capturePath,
            "--trigger-kind", EnumSpelling.Spell(trigger.Kind),
            "--trigger-activity", trigger.Activity,
            "--trigger-start-ms", trigger.StartMSec.ToString("R", CultureInfo.InvariantCulture),
            "--trigger-ms", trigger.DurationMSec.ToString("R", CultureInfo.InvariantCulture),
            "--trigger-reason", trigger.Reason,
            "--arrival-field", selection.ArrivalField,
        };

        // The default selection lets the capture decide (a load test's Request, else TailDb's Get/Put/Delete), as `slowest` does.
        if (!selection.Auto)
        {
            arguments.AddRange(["--provider", selection.Provider]);
            foreach (var activity in selection.Activities)
            {
                arguments.AddRange(["--activity", activity]);
            }
        }

        return arguments;
    }

    private static void LowerPriority(Process process)
    {
        if (process.StartInfo.FileName == NicePath)
        {
            return;
        }

        try
        {
            process.PriorityClass = ProcessPriorityClass.BelowNormal;
        }
        catch (Exception e) when (e is Win32Exception or InvalidOperationException or PlatformNotSupportedException)
        {
            // Exited already, or not allowed: it runs at normal priority.
        }
    }

    private static async Task KillAsync(Process process)
    {
        try
        {
            process.Kill(entireProcessTree: true);
            await process.WaitForExitAsync(CancellationToken.None).WaitAsync(TimeSpan.FromSeconds(10)).ConfigureAwait(false);
        }
        catch (Exception e) when (e is Win32Exception or InvalidOperationException or TimeoutException)
        {
            // Gone already, or unkillable: nothing more this side can do.
        }
    }

    /// <summary>A killed report leaves at most its temporary files; the .txt and .json are whole or absent.</summary>
    private static void RemovePartial(string capturePath)
    {
        var stem = Path.ChangeExtension(capturePath, null);
        foreach (var partial in new[] { stem + ".txt.partial", stem + ".json.partial" })
        {
            try
            {
                File.Delete(partial);
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException)
            {
                // Left behind; never under the report's own name.
            }
        }
    }

    private static string? FirstLine(string text) =>
        text.Split('\n', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries).FirstOrDefault();

    private static string? LastLine(string text) =>
        text.Split('\n', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries).LastOrDefault();
}
