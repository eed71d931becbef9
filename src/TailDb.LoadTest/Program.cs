using System.CommandLine;
using System.Runtime.InteropServices;
using TailDb.Cli;
using TailDb.LoadTest;
using TailDb.LoadTest.Commands;

RootCommand root = RunCommand.Create();
root.Subcommands.Add(WorkerCommand.Create());
root.Subcommands.Add(FanOutClientCommand.Create());
root.Subcommands.Add(CrashTestCommand.Create());
root.Subcommands.Add(CrashChildCommand.Create());
root.Subcommands.Add(CpuHogCommand.Create());
root.Subcommands.Add(ScenarioCommand.Create());

// Ctrl-C and SIGTERM cancel the run: the worker cuts its measured phase short and the harness
// still prints what was measured (System.CommandLine's own handler would abandon it after 2 s).
using var stop = new CancellationTokenSource();
using var sigint = PosixSignalRegistration.Create(PosixSignal.SIGINT, Cancel);
using var sigterm = PosixSignalRegistration.Create(PosixSignal.SIGTERM, Cancel);

return await CommandLineBoundary.RunAsync(
    root,
    args,
    new CommandLineExits<ExitCode>("TailDb.LoadTest", ExitCode.InvalidArguments, ExitCode.UnexpectedError),
    new InvocationConfiguration { ProcessTerminationTimeout = null, EnableDefaultExceptionHandler = false },
    stop.Token).ConfigureAwait(false);

void Cancel(PosixSignalContext context)
{
    context.Cancel = true;
    stop.Cancel();
}
