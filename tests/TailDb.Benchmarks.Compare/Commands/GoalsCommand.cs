using System.CommandLine;
using TailDb.Benchmarks.Compare.Goals;
using TailDb.Benchmarks.Compare.Reporting;
using TailDb.Benchmarks.Compare.Results;

namespace TailDb.Benchmarks.Compare.Commands;

/// <summary>
/// `goals --results DIR`: TailDb's goals as ratios measured in one run, met or missed. Reports
/// only: goals are judged on the full run's numbers, not gates for a quick CI run.
/// </summary>
public static class GoalsCommand
{
    public static readonly Option<string[]> ResultsPaths = new("--results")
    {
        Description = "BenchmarkDotNet full JSON files, or directories searched for *-report-full.json",
        Required = true,
        AllowMultipleArgumentsPerToken = true,
    };

    public static Command Create()
    {
        var command = new Command("goals", "Prints TailDb's performance goals as ratios from one run, met or missed") { ResultsPaths };
        command.SetAction(parseResult => (int)Run(parseResult.GetValue(ResultsPaths) ?? [], Console.Out, Console.Error));
        return command;
    }

    public static ExitCode Run(IReadOnlyList<string> paths, TextWriter output, TextWriter error)
    {
        ArgumentNullException.ThrowIfNull(output);
        ArgumentNullException.ThrowIfNull(error);
        try
        {
            output.Write(GoalTable.Render(GoalEvaluator.Evaluate(TailDbGoals.All, BdnJsonReader.ReadAll(paths))));
            return ExitCode.Success;
        }
        catch (CompareException e)
        {
            error.WriteLine($"error: {e.Message}");
            return ExitCode.BadInput;
        }
    }
}
