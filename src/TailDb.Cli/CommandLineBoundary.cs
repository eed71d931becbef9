using System.CommandLine;

namespace TailDb.Cli;

/// <summary>How one executable ends on bad input and on a bug.</summary>
/// <param name="Tool">Its name, in the line a bug prints.</param>
/// <param name="BadArguments">The code for a flag or argument that does not parse.</param>
/// <param name="UnexpectedError">The code for anything but its user-facing exception.</param>
/// <param name="UsageWhenBare">A bare invocation prints the usage and exits with <paramref name="BadArguments"/>
/// (for a tool whose root does nothing by itself).</param>
public sealed record CommandLineExits<TExitCode>(string Tool, TExitCode BadArguments, TExitCode UnexpectedError, bool UsageWhenBare = false)
    where TExitCode : struct, Enum;

/// <summary>
/// The CLI boundary every TailDb executable shares: one line for the first parse error, one line for
/// its <see cref="UserFacingException{TExitCode}"/> with that exception's code, and anything else
/// printed in full as a bug. Program.cs wires its commands and calls this.
/// </summary>
public static class CommandLineBoundary
{
    public static async Task<int> RunAsync<TExitCode>(
        RootCommand root, string[] args, CommandLineExits<TExitCode> exits, InvocationConfiguration configuration, CancellationToken cancellationToken = default)
        where TExitCode : struct, Enum
    {
        ArgumentNullException.ThrowIfNull(root);
        ArgumentNullException.ThrowIfNull(args);
        ArgumentNullException.ThrowIfNull(exits);
        ArgumentNullException.ThrowIfNull(configuration);
        TextWriter error = configuration.Error;
        if (exits.UsageWhenBare && args.Length == 0)
        {
            // The usage, not only "Required command was not provided".
            await root.Parse(["--help"]).InvokeAsync(configuration, cancellationToken).ConfigureAwait(false);
            return Code(exits.BadArguments);
        }

        ParseResult parsed = root.Parse(args);
        if (parsed.Errors.Count > 0)
        {
            // One line naming the flag, not System.CommandLine's error list followed by the whole help.
            await error.WriteLineAsync($"error: {OneLine(parsed.Errors[0].Message)}").ConfigureAwait(false);
            return Code(exits.BadArguments);
        }

        try
        {
            return await parsed.InvokeAsync(configuration, cancellationToken).ConfigureAwait(false);
        }
        catch (UserFacingException<TExitCode> e)
        {
            await error.WriteLineAsync($"error: {e.Message}").ConfigureAwait(false);
            return Code(e.ExitCode);
        }
#pragma warning disable CA1031 // The CLI boundary: anything else is a bug, printed in full with its stack, never disguised as bad input.
        catch (Exception e)
#pragma warning restore CA1031
        {
            await error.WriteLineAsync($"internal error (a bug in {exits.Tool}; please report it with this text): {e}").ConfigureAwait(false);
            return Code(exits.UnexpectedError);
        }
    }

    private static int Code<TExitCode>(TExitCode code)
        where TExitCode : struct, Enum => Convert.ToInt32(code, System.Globalization.CultureInfo.InvariantCulture);

    private static string OneLine(string message) =>
        string.Join(" ", message.Split((char[])['\r', '\n', '\t'], StringSplitOptions.RemoveEmptyEntries));
}
