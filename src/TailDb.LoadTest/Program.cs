using System.CommandLine;
using System.Runtime.InteropServices;
using TailDb.LoadTest;
using TailDb.LoadTest.Commands;

RootCommand root = RunCommand.Create();
root.Subcommands.Add(WorkerCommand.Create());
root.Subcommands.Add(FanOutClientCommand.Create());
root.Subcommands.Add(CrashTestCommand.Create());
root.Subcommands.Add(CrashChildCommand.Create());
root.Subcommands.Add(CpuHogCommand.Create());
root.Subcommands.Add(ScenarioCommand.Create());

ParseResult parsed = root.Parse(args);
if (parsed.Errors.Count > 0)
{
    // One line naming the flag, not System.CommandLine's error list followed by the whole help.
    Console.Error.WriteLine($"error: {parsed.Errors[0].Message}");
    return (int)ExitCode.InvalidArguments;
}

// Ctrl-C and SIGTERM cancel the run: the worker cuts its measured phase short and the harness
// still prints what was measured (System.CommandLine's own handler would abandon it after 2 s).
using var stop = new CancellationTokenSource();
using var sigint = PosixSignalRegistration.Create(PosixSignal.SIGINT, Cancel);
using var sigterm = PosixSignalRegistration.Create(PosixSignal.SIGTERM, Cancel);

try
{
    return await parsed.InvokeAsync(new InvocationConfiguration { ProcessTerminationTimeout = null, EnableDefaultExceptionHandler = false }, stop.Token).ConfigureAwait(false);
}
catch (LoadTestException e)
{
    Console.Error.WriteLine($"error: {e.Message}");
    return (int)e.ExitCode;
}
#pragma warning disable CA1031 // The CLI boundary: anything unexpected is printed in full, with its stack.
catch (Exception e)
#pragma warning restore CA1031
{
    Console.Error.WriteLine($"internal error: {e}");
    return (int)ExitCode.UnexpectedError;
}

void Cancel(PosixSignalContext context)
{
    context.Cancel = true;
    stop.Cancel();
}
