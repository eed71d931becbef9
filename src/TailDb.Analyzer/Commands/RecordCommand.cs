using System.CommandLine;
using System.Diagnostics;
using Microsoft.Diagnostics.NETCore.Client;
using TailDb.LoadTest.Recording;

namespace TailDb.Analyzer.Commands;

/// <summary>
/// `record --pid N -o FILE` or `record -o FILE -- command args`: the load test's providers and
/// recorder, so a trace for `slowest` needs no other tool. A launched child starts suspended
/// (DOTNET_DefaultDiagnosticPortSuspend=1) and resumes only once the session runs, so its first
/// request is in the trace.
/// </summary>
internal static class RecordCommand
{
    public static readonly Option<int?> ProcessId = new("--pid", "-p") { Description = "Attach to this running .NET process." };

    public static readonly Option<FileInfo> Output = new("--output", "-o")
    {
        Description = "The .nettrace file to write.",
        Required = true,
    };

    public static readonly Option<double?> Duration = new("--duration")
    {
        Description = "Stop after this many seconds (default: when the process exits, or Ctrl+C).",
    };

    public static readonly Option<bool> NoSamples = new("--no-samples")
    {
        Description = "Leave out the sample profiler (no stacks; no sampler suspensions either).",
    };

    public static readonly Option<string[]> Providers = new("--provider")
    {
        Description = "A further EventSource to enable fully, e.g. Microsoft.AspNetCore.Hosting (repeatable).",
        AllowMultipleArgumentsPerToken = false,
    };

    public static readonly Argument<string[]> Command = new("command")
    {
        Description = "After --: the program to launch and record, with its arguments.",
        Arity = ArgumentArity.ZeroOrMore,
    };

    public sealed record Settings(int? ProcessId, FileInfo Output, double? DurationSeconds, bool Samples, string[] Providers, string[] Command);

    public static Command Create()
    {
        var command = new Command("record", "Record a trace with the providers TailDb's load test uses.")
        {
            ProcessId, Output, Duration, NoSamples, Providers, Command,
        };
        command.SetAction((parseResult, cancellationToken) => RunAsync(
            new Settings(
                parseResult.GetValue(ProcessId),
                parseResult.GetValue(Output)!,
                parseResult.GetValue(Duration),
                !parseResult.GetValue(NoSamples),
                parseResult.GetValue(Providers) ?? [],
                parseResult.GetValue(Command) ?? []),
            Console.Out,
            cancellationToken));
        return command;
    }

    public static async Task<int> RunAsync(Settings settings, TextWriter log, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(settings);
        ArgumentNullException.ThrowIfNull(log);
        if (settings.ProcessId is null == (settings.Command.Length == 0))
        {
            throw new AnalyzerException(ExitCode.BadArguments, "record: give either --pid N or a command after --, not both and not neither");
        }

        if (settings.DurationSeconds is <= 0)
        {
            throw new AnalyzerException(ExitCode.BadArguments, "--duration must be positive");
        }

        var providers = RecordingProviders.Create(settings.Samples, settings.Providers);
        Process? child = null;
        int pid;
        if (settings.ProcessId is { } attachTo)
        {
            pid = attachTo;
        }
        else
        {
            child = StartSuspended(settings.Command);
            pid = child.Id;
        }

        EventPipeRecorder recorder;
        try
        {
            recorder = await EventPipeRecorder.StartAsync(pid, settings.Output.FullName, providers, resumeRuntime: child is not null,
                cancellationToken: cancellationToken);
        }
        catch (Exception e) when (e is TimeoutException or ServerNotAvailableException or UnsupportedCommandException or IOException or UnauthorizedAccessException)
        {
            child?.Kill(entireProcessTree: true);
            throw new AnalyzerException(ExitCode.RecordingFailed, $"record: cannot start a session in process {pid}: {e.Message}", e);
        }

        await using (recorder)
        {
            log.WriteLine($"recording process {pid} into {settings.Output.FullName}");
            await WaitForEndAsync(pid, child, settings.DurationSeconds, cancellationToken);
            var bytes = await recorder.StopAsync(TimeSpan.FromSeconds(60));
            log.WriteLine($"wrote {bytes:N0} bytes to {settings.Output.FullName}");
        }

        if (child is not null)
        {
            await child.WaitForExitAsync(CancellationToken.None);
            log.WriteLine($"command exited with code {child.ExitCode}");
            child.Dispose();
        }

        return (int)ExitCode.Success;
    }

    private static Process StartSuspended(string[] command)
    {
        var start = new ProcessStartInfo(command[0]) { UseShellExecute = false };
        foreach (var argument in command.AsSpan(1))
        {
            start.ArgumentList.Add(argument);
        }

        start.Environment["DOTNET_DefaultDiagnosticPortSuspend"] = "1";
        try
        {
            return Process.Start(start) ?? throw new AnalyzerException(ExitCode.RecordingFailed, $"record: could not start {command[0]}");
        }
        catch (System.ComponentModel.Win32Exception e)
        {
            throw new AnalyzerException(ExitCode.RecordingFailed, $"record: could not start {command[0]}: {e.Message}", e);
        }
    }

    private static async Task WaitForEndAsync(int pid, Process? child, double? durationSeconds, CancellationToken cancellationToken)
    {
        using var timeout = durationSeconds is { } seconds ? new CancellationTokenSource(TimeSpan.FromSeconds(seconds)) : new CancellationTokenSource();
        using var either = CancellationTokenSource.CreateLinkedTokenSource(timeout.Token, cancellationToken);
        try
        {
            if (child is not null)
            {
                await child.WaitForExitAsync(either.Token);
                return;
            }

            using var attached = Process.GetProcessById(pid);
            await attached.WaitForExitAsync(either.Token);
        }
        catch (OperationCanceledException)
        {
            // Ctrl+C or --duration: stop the session and keep what was recorded.
        }
        catch (ArgumentException)
        {
            // The process is already gone; its stream has ended by itself.
        }
    }
}
