using System.CommandLine;
using TailDb.Cli;

namespace TailDb.Analyzer.Commands;

/// <summary>
/// The analyzer's CLI boundary: TailDb.Cli's <see cref="CommandLineBoundary"/> with the analyzer's
/// codes (usage for a bare invocation, <see cref="ExitCode.BadArguments"/>, an
/// <see cref="AnalyzerException"/>'s own code, <see cref="ExitCode.UnexpectedError"/> for a bug).
/// Program.cs only wires the commands into it.
/// </summary>
internal static class CommandLineRunner
{
    private static readonly CommandLineExits<ExitCode> Exits = new("TailDb.Analyzer", ExitCode.BadArguments, ExitCode.UnexpectedError, UsageWhenBare: true);

    public static Task<int> RunAsync(RootCommand root, string[] args, TextWriter output, TextWriter error)
    {
        ArgumentNullException.ThrowIfNull(error);
        var configuration = new InvocationConfiguration
        {
            EnableDefaultExceptionHandler = false,
            Output = output,
            Error = error,

            // Ctrl+C and SIGTERM cancel the command's token; watch and record then stop their session and finish what they write.
            ProcessTerminationTimeout = TimeSpan.FromSeconds(60),
        };
        return CommandLineBoundary.RunAsync(root, args, Exits, configuration);
    }
}
