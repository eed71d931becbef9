using System.Diagnostics;
using System.Text.RegularExpressions;

namespace TailDb.TestSupport.Cli;

/// <summary>
/// An executable's --help as a user sees it: run from the test's output folder, every command it
/// lists, and the lines whose defaults a user could not read (System.CommandLine prints a default
/// with ToString, so a record shows as "Type { A = 1, ... }" and a class as its type name).
/// </summary>
public static partial class HelpText
{
    /// <summary>`dotnet exec DLL ARGS` from the test's output folder: exit code, stdout, stderr.</summary>
    public static async Task<(int Code, string Stdout, string Stderr)> RunAsync(string dll, params string[] args)
    {
        var start = new ProcessStartInfo("dotnet") { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
        start.ArgumentList.Add("exec");
        start.ArgumentList.Add(Path.Combine(AppContext.BaseDirectory, dll));
        foreach (var arg in args)
        {
            start.ArgumentList.Add(arg);
        }

        using var process = Process.Start(start)!;
        var stdout = process.StandardOutput.ReadToEndAsync();
        var stderr = process.StandardError.ReadToEndAsync();
        await process.WaitForExitAsync().WaitAsync(TimeSpan.FromSeconds(60));
        return (process.ExitCode, await stdout, await stderr);
    }

    /// <summary>The root help and each listed command's help, keyed by the arguments that printed it.</summary>
    public static async Task<IReadOnlyList<(string Arguments, string Help)>> EveryHelpAsync(string dll)
    {
        var (code, root, stderr) = await RunAsync(dll, "--help");
        if (code != 0)
        {
            throw new InvalidOperationException($"{dll} --help exited {code}: {stderr}");
        }

        var helps = new List<(string, string)> { ("--help", root) };
        foreach (var command in Commands(root))
        {
            var (commandCode, help, commandError) = await RunAsync(dll, command, "--help");
            if (commandCode != 0)
            {
                throw new InvalidOperationException($"{dll} {command} --help exited {commandCode}: {commandError}");
            }

            helps.Add(($"{command} --help", help));
        }

        return helps;
    }

    /// <summary>The command names under "Commands:" (each indented two spaces, its description after).</summary>
    public static IReadOnlyList<string> Commands(string help) =>
        [.. help.Split('\n').SkipWhile(line => !line.StartsWith("Commands:", StringComparison.Ordinal)).Skip(1)
            .TakeWhile(line => line.StartsWith("  ", StringComparison.Ordinal))
            .Select(line => line.Trim().Split(' ')[0])
            .Where(name => name.Length > 0 && !name.StartsWith('<'))];

    /// <summary>
    /// Lines that show a default as an object dump (braces, "Name = value" pairs, a CLR type name),
    /// or, for an option spelled as choices (`--format &lt;text|json&gt;`), a default that is none of
    /// them (case and dashes aside: an enum's name, "ZeroCopy" for zero-copy, is what System.CommandLine prints).
    /// </summary>
    public static IReadOnlyList<string> UnreadableDefaults(string help) =>
        [.. help.Split('\n').Where(line => line.Contains("{ ", StringComparison.Ordinal) || Dump().IsMatch(line) || NotAChoice(line)).Select(line => line.Trim())];

    private static bool NotAChoice(string line)
    {
        var match = Choices().Match(line);
        if (!match.Success)
        {
            return false;
        }

        static string Bare(string s) => s.Replace("-", "", StringComparison.Ordinal).ToUpperInvariant();
        var shown = Bare(match.Groups["default"].Value);
        return !match.Groups["choices"].Value.Split('|').Any(choice => Bare(choice) == shown);
    }

    [GeneratedRegex(@"\[default: [^\]]*(\{|\}| = |System\.|`1|\bTailDb\.)")]
    private static partial Regex Dump();

    [GeneratedRegex(@"^\s+-[^<]*<(?<choices>[^>]*\|[^>]*)>.*\[default: (?<default>[^\]]*)\]\s*$")]
    private static partial Regex Choices();
}
