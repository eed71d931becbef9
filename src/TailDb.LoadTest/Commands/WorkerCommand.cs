using System.CommandLine;
using System.Runtime.InteropServices;
using System.Text.Json;
using TailDb.LoadTest.Harness;
using TailDb.LoadTest.Reporting;
using TailDb.LoadTest.Workloads;

namespace TailDb.LoadTest.Commands;

/// <summary>
/// The hidden `worker` command: the child process the harness starts under a runtimeconfig.
/// Not meant to be run by hand; the harness passes it a spec file.
/// </summary>
public static class WorkerCommand
{
    private static readonly Option<FileInfo> SpecOption = new("--spec")
    {
        Description = "Worker spec written by the harness",
        Required = true,
    };

    public static Command Create()
    {
        var command = new Command(WorkerProtocol.CommandName, "Runs one GC mode's workload (started by the harness)")
        {
            Hidden = true,
        };
        command.Options.Add(SpecOption);
        command.SetAction(parseResult => (int)Run(parseResult.GetValue(SpecOption)!));
        return command;
    }

    private static ExitCode Run(FileInfo specFile)
    {
        WorkerSpec spec = JsonSerializer.Deserialize<WorkerSpec>(File.ReadAllText(specFile.FullName), WorkerResult.Json)
            ?? throw new LoadTestException(ExitCode.InvalidArguments, $"--spec: {specFile.FullName} is empty");

        using var stop = new CancellationTokenSource();
        // Ctrl-C in a terminal reaches the whole process group: finish the phase early and report.
        using var sigint = PosixSignalRegistration.Create(PosixSignal.SIGINT, context =>
        {
            context.Cancel = true;
            stop.Cancel();
        });
        using var sigterm = PosixSignalRegistration.Create(PosixSignal.SIGTERM, context =>
        {
            context.Cancel = true;
            stop.Cancel();
        });

        // stdin closing is the harness saying "stop" (or the harness is gone): never outlive it.
        WorkerProtocol.CancelWhenStdinCloses(stop, "harness-watch");

        var stdout = Console.Out;
        WorkerResult result = new WorkerSession(spec, stdout).Run(stop.Token);
        // Stays alive after "done" until the harness has stopped its trace session (it then closes stdin).
        WorkerProtocol.Finish(result, spec.ResultPath, stdout, WorkerResult.Json, stop.Token);
        return ExitCode.Success;
    }
}
