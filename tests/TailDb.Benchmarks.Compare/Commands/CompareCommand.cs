using System.CommandLine;
using TailDb.Benchmarks.Compare.Comparison;
using TailDb.Benchmarks.Compare.Reporting;
using TailDb.Benchmarks.Compare.Results;

namespace TailDb.Benchmarks.Compare.Commands;

/// <summary>
/// `compare --baseline DIR --current DIR`: prints the markdown comparison and
/// exits 2 on a regression (allocation growth, or significant and past the fail ratio).
/// </summary>
public static class CompareCommand
{
    public static readonly Option<string[]> Baseline = new("--baseline")
    {
        Description = "BenchmarkDotNet full JSON files, or directories searched for *-report-full.json",
        Required = true,
        AllowMultipleArgumentsPerToken = true,
    };

    public static readonly Option<string[]> Current = new("--current")
    {
        Description = "This run's full JSON files or directories",
        Required = true,
        AllowMultipleArgumentsPerToken = true,
    };

    public static readonly Option<double> Alpha = new("--alpha")
    {
        Description = "Significance level of each one-sided Mann-Whitney test",
        DefaultValueFactory = _ => new ComparisonOptions().Alpha,
    };

    public static readonly Option<double> FailRatio = new("--fail-ratio")
    {
        Description = "A significant slowdown fails CI only at or past this now/baseline median ratio",
        DefaultValueFactory = _ => new ComparisonOptions().FailRatio,
    };

    public static readonly Option<long> AllocationTolerance = new("--allocation-tolerance")
    {
        Description = "Bytes per operation allocations may grow without failing (allocations are deterministic: 0)",
        DefaultValueFactory = _ => new ComparisonOptions().AllocationToleranceBytes,
    };

    public static readonly Option<double> AllocationRelativeTolerance = new("--allocation-relative-tolerance")
    {
        Description = "Fraction of the baseline's bytes per operation allocations may grow without failing (runtime background noise on huge operations)",
        DefaultValueFactory = _ => new ComparisonOptions().AllocationRelativeTolerance,
    };

    public static readonly Option<string?> Output = new("--output")
    {
        Description = "Also write the markdown table to this file",
    };

    public static Command Create()
    {
        var command = new Command("compare", "Compares two BenchmarkDotNet runs (full JSON) and fails on regressions")
        {
            Baseline, Current, Alpha, FailRatio, AllocationTolerance, AllocationRelativeTolerance, Output,
        };
        command.SetAction(parseResult => (int)Run(Bind(parseResult), Console.Out, Console.Error));
        return command;
    }

    public static ExitCode Run(CompareArguments arguments, TextWriter output, TextWriter error)
    {
        ArgumentNullException.ThrowIfNull(arguments);
        ArgumentNullException.ThrowIfNull(output);
        ArgumentNullException.ThrowIfNull(error);
        try
        {
            Validate(arguments.Options);
            var baseline = BdnJsonReader.ReadAll(arguments.BaselinePaths);
            var current = BdnJsonReader.ReadAll(arguments.CurrentPaths);
            var rows = BenchmarkComparer.Compare(baseline, current, arguments.Options);
            var table = MarkdownTable.Render(rows, arguments.Options);
            output.Write(table);
            if (arguments.OutputPath is { } path)
            {
                File.WriteAllText(path, table);
            }

            return rows.Any(r => r.Fails) ? ExitCode.Regression : ExitCode.Success;
        }
        catch (CompareException e)
        {
            error.WriteLine($"error: {e.Message}");
            return ExitCode.BadInput;
        }
    }

    private static CompareArguments Bind(ParseResult parseResult) =>
        new(
            parseResult.GetValue(Baseline) ?? [],
            parseResult.GetValue(Current) ?? [],
            new ComparisonOptions(
                parseResult.GetValue(Alpha), parseResult.GetValue(FailRatio),
                parseResult.GetValue(AllocationTolerance), parseResult.GetValue(AllocationRelativeTolerance)),
            parseResult.GetValue(Output));

    private static void Validate(ComparisonOptions options)
    {
        if (options.Alpha is <= 0 or >= 1)
        {
            throw new CompareException($"--alpha must be between 0 and 1 (got {options.Alpha})");
        }

        if (options.FailRatio <= 1)
        {
            throw new CompareException($"--fail-ratio must be above 1 (got {options.FailRatio})");
        }

        if (options.AllocationToleranceBytes < 0)
        {
            throw new CompareException($"--allocation-tolerance must not be negative (got {options.AllocationToleranceBytes})");
        }

        if (options.AllocationRelativeTolerance is < 0 or >= 1)
        {
            throw new CompareException($"--allocation-relative-tolerance must be in [0, 1) (got {options.AllocationRelativeTolerance})");
        }
    }
}

public sealed record CompareArguments(
    IReadOnlyList<string> BaselinePaths, IReadOnlyList<string> CurrentPaths, ComparisonOptions Options, string? OutputPath);
