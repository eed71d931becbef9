using System.CommandLine;
using System.Globalization;
using TailDb.LoadTest.Scenarios;

namespace TailDb.LoadTest.Commands;

/// <summary>
/// `scenario NAME|all|list`: the seeds' stories as experiments. Each runs its before and after
/// through the harness, traced, analyzes both and prints one before/after table.
/// </summary>
public static class ScenarioCommand
{
    private static readonly ScenarioSettings Defaults = new();

    private static readonly Argument<string> NameArgument = new("name")
    {
        Description = $"A story ({string.Join(", ", ScenarioCatalog.All.Select(s => s.Name))}), all, or list",
    };

    private static readonly Option<double> DurationOption = new("--duration") { Description = "Measured seconds per run", DefaultValueFactory = _ => Defaults.DurationSeconds };
    private static readonly Option<double> WarmupOption = new("--warmup") { Description = "Warm-up seconds per run", DefaultValueFactory = _ => Defaults.WarmupSeconds };
    private static readonly Option<int> KeysOption = new("--keys") { Description = "Distinct keys each run writes", DefaultValueFactory = _ => Defaults.Keys };
    private static readonly Option<int> RepeatOption = new("--repeat") { Description = "gc-modes: runs per mode, interleaved; each figure is the median", DefaultValueFactory = _ => Defaults.Repeat };
    private static readonly Option<DirectoryInfo?> ReportOption = new("--report")
    {
        Description = "Keep each story's traces and the harness's own output in DIR/NAME/ and write its pages there (each side's slowest page and index.html side by side)",
        HelpName = "DIR",
    };

    public static Command Create()
    {
        var command = new Command("scenario", "Rerun a seed's tail-latency story, before and after, and print what moved")
        {
            NameArgument, DurationOption, WarmupOption, KeysOption, RepeatOption, ReportOption,
        };
        command.SetAction(async (parseResult, cancellationToken) =>
        {
            string name = parseResult.GetValue(NameArgument)!;
            var settings = new ScenarioSettings
            {
                DurationSeconds = parseResult.GetValue(DurationOption),
                WarmupSeconds = parseResult.GetValue(WarmupOption),
                Keys = parseResult.GetValue(KeysOption),
                Repeat = parseResult.GetValue(RepeatOption),
                ReportDirectory = parseResult.GetValue(ReportOption),
            };
            if (settings.Validate() is { } problem)
            {
                throw new LoadTestException(ExitCode.InvalidArguments, problem);
            }

            if (name.Equals("list", StringComparison.OrdinalIgnoreCase))
            {
                List(Console.Out, settings);
                return (int)ExitCode.Success;
            }

            IReadOnlyList<IScenario> stories = name.Equals("all", StringComparison.OrdinalIgnoreCase)
                ? ScenarioCatalog.All
                : [ScenarioCatalog.Find(name) ?? throw new LoadTestException(ExitCode.InvalidArguments,
                    $"no scenario '{name}'; choose one of {string.Join(", ", ScenarioCatalog.All.Select(s => s.Name))}, all, or list")];
            return (int)await RunAsync(stories, settings, Console.Out, Console.IsErrorRedirected ? null : Console.Error, cancellationToken).ConfigureAwait(false);
        });
        return command;
    }

    /// <summary>Runs each story in turn and prints its table as soon as it is done.</summary>
    public static async Task<ExitCode> RunAsync(IReadOnlyList<IScenario> stories, ScenarioSettings settings, TextWriter output, TextWriter? progress, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(stories);
        ArgumentNullException.ThrowIfNull(settings);
        ArgumentNullException.ThrowIfNull(output);
        settings.ReportDirectory?.Create();
        output.WriteLine($"machine: {Reporting.MachineInfo.Current().Describe()}; about {Minutes(stories.Sum(s => settings.Estimate(s.Runs(settings)).TotalMinutes))} for {stories.Count} stor{(stories.Count == 1 ? "y" : "ies")}");
        LoadTestException? first = null;
        foreach (IScenario story in stories)
        {
            cancellationToken.ThrowIfCancellationRequested();
            using var runner = new ScenarioRunner(story, settings, progress);
            StoryOutcome outcome;
            try
            {
                outcome = await story.RunAsync(runner, cancellationToken).ConfigureAwait(false);
            }
            catch (LoadTestException e) when (stories.Count > 1 && !cancellationToken.IsCancellationRequested)
            {
                // `scenario all`: one story that cannot run (a server that would not start) leaves the others' tables.
                output.WriteLine();
                output.WriteLine($"{story.Name} (seed {story.Seed}): not run: {e.Message}");
                first ??= e;
                continue;
            }

            StoryTable.Write(output, story, outcome, settings);
            if (runner.WritePages() is { } page)
            {
                output.WriteLine($"report: {page}");
            }
        }

        if (first is not null)
        {
            throw first;
        }

        return ExitCode.Success;
    }

    private static void List(TextWriter output, ScenarioSettings settings)
    {
        foreach (IScenario story in ScenarioCatalog.All)
        {
            output.WriteLine($"{story.Name} (seed {story.Seed}, about {Minutes(settings.Estimate(story.Runs(settings)).TotalMinutes)}): {story.Sides}");
            output.WriteLine($"    {story.Shows}");
        }
    }

    private static string Minutes(double minutes) => minutes < 1
        ? $"{Math.Ceiling(minutes * 60).ToString("0", CultureInfo.InvariantCulture)} s"
        : $"{minutes.ToString("0.#", CultureInfo.InvariantCulture)} min";
}
