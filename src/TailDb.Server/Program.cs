using System.CommandLine;
using TailDb.Cli;
using TailDb.Server;
using TailDb.Server.Cli;

return await CommandLineBoundary.RunAsync(
    ServeCommand.Create(args),
    args,
    new CommandLineExits<ExitCode>("TailDb.Server", ExitCode.InvalidArguments, ExitCode.UnexpectedError),
    new InvocationConfiguration { ProcessTerminationTimeout = null, EnableDefaultExceptionHandler = false }).ConfigureAwait(false);
