using System.CommandLine;
using System.Diagnostics;
using Microsoft.Diagnostics.NETCore.Client;
using TailDb.Analyzer.Sources.EventPipe;
using TailDb.Tracing.Recording;

namespace TailDb.Analyzer.Commands;

/// <summary>
/// `record --pid N -o FILE` or `record -o FILE -- command args`: the load test's providers and
/// recorder, so a trace for `slowest` needs no other tool. A launched child starts suspended on a
/// reversed diagnostic port (TailDb.Tracing's RecordedChild) and resumes only once the session
/// runs, so its first request is in the trace.
/// </summary>
internal static class RecordCommand
{
    private static readonly TimeSpan ConnectTimeout = TimeSpan.FromSeconds(30);
    private static readonly TimeSpan DrainTimeout = TimeSpan.FromSeconds(60);

    public static readonly Option<FileInfo> Output = new("--output", "-o")
    {
        Description = "The .nettrace file to write.",
        Required = true,
    };

    public static readonly Option<double?> Duration = new("--duration")
    {
        Description = "Stop after this many seconds (default: when the process exits, or Ctrl+C).",
    };

    public static readonly Option<string[]> Providers = new("--provider")
    {
        Description = "A further EventSource to enable fully, e.g. Microsoft.AspNetCore.Hosting (repeatable).",
        AllowMultipleArgumentsPerToken = false,
    };

    public sealed record Settings(int? ProcessId, FileInfo Output, double? DurationSeconds, bool Samples, string[] Providers, string[] Command);

    public static Command Create()
    {
        var command = new Command("record", "Record a trace with the providers TailDb's load test uses.")
        {
            CommonOptions.ProcessId, Output, Duration, CommonOptions.NoSamples, Providers, CommonOptions.LaunchCommand,
        };
        command.SetAction((parseResult, cancellationToken) => RunAsync(
            new Settings(
                parseResult.GetValue(CommonOptions.ProcessId),
                parseResult.GetValue(Output)!,
                parseResult.GetValue(Duration),
                !parseResult.GetValue(CommonOptions.NoSamples),
                parseResult.GetValue(Providers) ?? [],
                parseResult.GetValue(CommonOptions.LaunchCommand) ?? []),
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

        var options = new RecordingOptions(RecordingProviders.Create(settings.Samples, settings.Providers));
        if (settings.ProcessId is { } pid)
        {
            await using EventPipeRecorder recorder = await SessionStart.AttachAsync("record", pid, () => EventPipeRecorder.AttachAsync(pid, settings.Output.FullName, options, cancellationToken));
            log.WriteLine($"recording process {pid} into {settings.Output.FullName}");
            await WaitForEndAsync(pid, null, settings.DurationSeconds, cancellationToken);
            log.WriteLine($"wrote {await recorder.StopAsync(DrainTimeout):N0} bytes to {settings.Output.FullName}");
            return (int)ExitCode.Success;
        }

        await using RecordedChild child = await SessionStart.LaunchAsync("record", settings.Command,
            start => RecordedChild.StartAsync(start, settings.Output.FullName, options, ConnectTimeout, cancellationToken));
        log.WriteLine($"recording process {child.Process.Id} into {settings.Output.FullName}");
        await WaitForEndAsync(child.Process.Id, child.Process, settings.DurationSeconds, cancellationToken);
        log.WriteLine($"wrote {await child.StopAsync(DrainTimeout):N0} bytes to {settings.Output.FullName}");
        await child.Process.WaitForExitAsync(CancellationToken.None);
        log.WriteLine($"command exited with code {child.Process.ExitCode}");
        return (int)ExitCode.Success;
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
