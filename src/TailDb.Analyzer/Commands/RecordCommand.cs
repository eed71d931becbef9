using System.CommandLine;
using System.Diagnostics;
using Microsoft.Diagnostics.NETCore.Client;
using TailDb.Analyzer.Sources.EventPipe;
using TailDb.Tracing.Recording;
using TailDb.Tracing.Sampling;

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

    public static readonly Option<RecordingLevel> Level = CommonOptions.Choice(
        "--trace-level",
        "What of TailDb's per-request events to record: store (the store's Get/Put/Delete with FileRead and Fsync nested, inside the server's Command when --provider TailDb-Server; the default, " +
        "since a process that calls the store directly has no other requests) or requests (the load test's Request or the server's Command only, and the store's upkeep: what slowest needs there).",
        RecordingLevel.Store,
        [RecordingLevel.Requests, RecordingLevel.Store]);

    public sealed record Settings(int? ProcessId, FileInfo Output, double? DurationSeconds, SamplerChoice Sampler, string[] Providers, string[] Command, RecordingLevel Level = RecordingLevel.Store);

    public static Command Create()
    {
        var command = new Command("record", "Record a trace with the providers TailDb's load test uses.")
        {
            CommonOptions.ProcessId, Output, Duration, CommonOptions.Sampler, CommonOptions.NoSamples, Providers, Level, CommonOptions.LaunchCommand,
        };
        command.SetAction((parseResult, cancellationToken) => RunAsync(
            new Settings(
                parseResult.GetValue(CommonOptions.ProcessId),
                parseResult.GetValue(Output)!,
                parseResult.GetValue(Duration),
                CommonOptions.ResolveSampler(parseResult),
                parseResult.GetValue(Providers) ?? [],
                parseResult.GetValue(CommonOptions.LaunchCommand) ?? [],
                parseResult.GetValue(Level)),
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

        var sampler = settings.Sampler;
        // No per-event stacks: the analyzer reads stacks from the CPU samples only (which keep theirs),
        // and a stack walk per event was most of what a session cost the traced process per event.
        var options = new RecordingOptions(
            RecordingProviders.Create(
                sampler.Kind == SamplerKind.EventPipe, settings.Providers, RecordingProviders.ActivityIdsFor(settings.Providers),
                namesFromPerf: sampler.Kind == SamplerKind.Perf, level: settings.Level),
            EventStacks: false);
        log.WriteLine($"sampler: {sampler.Describe()}");
        log.WriteLine($"trace level: {(settings.Level == RecordingLevel.Store ? "store" : "requests")}; activity ids: " +
            (RecordingProviders.ActivityIdsFor(settings.Providers) == ActivityIdSource.Own ? "the sources' own (TplEventSource off)" : "TplEventSource's task flow (keyword 0x80), for the --provider sources"));
        var path = settings.Output.FullName;
        if (settings.ProcessId is { } pid)
        {
            if (sampler.Kind == SamplerKind.Perf)
            {
                log.WriteLine("attached: JIT code is named only if the process started with DOTNET_PerfMapEnabled=1 and DOTNET_EnableWriteXorExecute=0 (perf cannot name code in W^X's /memfd:doublemapper)");
            }
            else if (sampler.Kind == SamplerKind.EventPipe && sampler.EventPipeIntervalMs != SamplerChoice.DefaultEventPipeIntervalMs)
            {
                log.WriteLine($"attached: the sampling interval is read at start-up ({SamplerChoice.EventPipeRateVariable}); this process keeps its own");
            }

            await using var attachedPerf = await StartPerfAsync(sampler, path, cancellationToken);
            await using EventPipeRecorder recorder = await SessionStart.AttachAsync("record", pid, () => EventPipeRecorder.AttachAsync(pid, path, options, cancellationToken));
            log.WriteLine($"recording process {pid} into {path}");
            await WaitForEndAsync(pid, null, settings.DurationSeconds, cancellationToken);
            log.WriteLine($"wrote {await recorder.StopAsync(DrainTimeout):N0} bytes to {path}");
            await StopPerfAsync(attachedPerf, path, pid, log);
            return (int)ExitCode.Success;
        }

        // perf first: the child stays suspended on its diagnostic port until the session runs, so its first instruction is in both.
        await using var perf = await StartPerfAsync(sampler, path, cancellationToken);
        await using RecordedChild child = await SessionStart.LaunchAsync("record", settings.Command, start =>
        {
            sampler.Configure(start);
            return RecordedChild.StartAsync(start, path, options, ConnectTimeout, cancellationToken);
        });
        log.WriteLine($"recording process {child.Process.Id} into {path}");
        await WaitForEndAsync(child.Process.Id, child.Process, settings.DurationSeconds, cancellationToken);
        log.WriteLine($"wrote {await child.StopAsync(DrainTimeout):N0} bytes to {path}");
        await StopPerfAsync(perf, path, child.Process.Id, log);
        await child.Process.WaitForExitAsync(CancellationToken.None);
        if (perf is not null)
        {
            // The maps sampler.Configure turned on; an attached process's (above) are its own, and it still runs.
            PerfRecorder.DeletePerfMaps(child.Process.Id);
        }

        log.WriteLine($"command exited with code {child.Process.ExitCode}");
        return (int)ExitCode.Success;
    }

    private static async Task<PerfRecorder?> StartPerfAsync(SamplerChoice sampler, string tracePath, CancellationToken cancellationToken)
    {
        if (sampler.Kind != SamplerKind.Perf)
        {
            return null;
        }

        try
        {
            return await PerfRecorder.StartAsync(tracePath, sampler.RateHz, ConnectTimeout, cancellationToken);
        }
        catch (InvalidOperationException e)
        {
            throw new AnalyzerException(ExitCode.RecordingFailed, $"record: --sampler perf: {e.Message}", e);
        }
    }

    private static async Task StopPerfAsync(PerfRecorder? perf, string tracePath, int pid, TextWriter log)
    {
        if (perf is null)
        {
            return;
        }

        try
        {
            var recording = await perf.StopAsync(tracePath, pid, DrainTimeout);
            log.WriteLine($"perf wrote {recording.Bytes:N0} bytes to {recording.Path} (recorder CPU {recording.RecordCpu.TotalSeconds:0.00} s, symbol resolution {recording.ScriptCpu.TotalSeconds:0.00} s)");
        }
        catch (InvalidOperationException e)
        {
            throw new AnalyzerException(ExitCode.RecordingFailed, $"record: --sampler perf: {e.Message}", e);
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
