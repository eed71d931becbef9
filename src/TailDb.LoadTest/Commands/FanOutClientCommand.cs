using System.CommandLine;
using System.Text.Json;
using TailDb.LoadTest.FanOut;
using TailDb.LoadTest.Harness;
using TailDb.LoadTest.Reporting;

namespace TailDb.LoadTest.Commands;

/// <summary>
/// The hidden `fanout-client` command: the fan-out scenario's client, a child the scenario starts
/// (traced from its first instruction, as the harness's workers are) with a spec file. It speaks the
/// worker's protocol: the result file, then <see cref="WorkerProtocol.Done"/>, then it waits for
/// stdin to close (the scenario has stopped its trace).
/// </summary>
public static class FanOutClientCommand
{
    public const string CommandName = "fanout-client";

    private static readonly Option<FileInfo> SpecOption = new("--spec")
    {
        Description = "Fan-out spec written by the scenario",
        Required = true,
    };

    public static Command Create()
    {
        var command = new Command(CommandName, "Runs the fan-out scenario's client (started by the scenario)") { Hidden = true };
        command.Options.Add(SpecOption);
        command.SetAction(parseResult => (int)Run(parseResult.GetValue(SpecOption)!));
        return command;
    }

    private static ExitCode Run(FileInfo specFile)
    {
        FanOutSpec spec = JsonSerializer.Deserialize<FanOutSpec>(File.ReadAllText(specFile.FullName), WorkerResult.Json)
            ?? throw new LoadTestException(ExitCode.InvalidArguments, $"--spec: {specFile.FullName} is empty");
        using var stop = new CancellationTokenSource();
        // stdin closing is the scenario saying "stop" (or the scenario is gone): never outlive it.
        WorkerProtocol.CancelWhenStdinCloses(stop, "scenario-watch");

        FanOutResult result;
        using (var session = new FanOutSession(spec))
        {
            result = session.Run(stop.Token);
        }

        WorkerProtocol.Finish(result, spec.ResultPath, Console.Out, WorkerResult.Json, stop.Token);
        return ExitCode.Success;
    }
}
