using System.Text.Json;
using TailDb.Analyzer.Comparison;
using TailDb.Analyzer.Findings;
using TailDb.Analyzer.Reports;
using TailDb.LoadTest.Harness;
using TailDb.LoadTest.Reporting;
using TailDb.LoadTest.Workloads;

namespace TailDb.LoadTest.Scenarios;

/// <summary>One mode's run within a side: what the load test measured and what the analyzer found in its trace.</summary>
/// <param name="Finding">`slowest` on the run's trace; null with <paramref name="AnalysisProblem"/> when it could not be analyzed.</param>
public sealed record SideRun(string Side, string Mode, int Run, WorkerResult Result, string? TracePath, TraceFinding? Finding, string? AnalysisProblem)
{
    /// <summary>Against a TailDb server: the client worker's trace (<see cref="TracePath"/> is then the server's).</summary>
    public string? ClientTracePath { get; init; }

    /// <summary>`slowest` on the client's trace: its Request activities, with PoolWait, Attempt and Retry nested.</summary>
    public TraceFinding? ClientFinding { get; init; }

    /// <summary>Why the client's trace could not be analyzed, when it could not.</summary>
    public string? ClientAnalysisProblem { get; init; }

    /// <summary>What the side's response times are: the client's trace when there is one (a networked side), else the run's.</summary>
    public TraceFinding? RequestFinding => ClientTracePath is null ? Finding : ClientFinding;
}

/// <summary>
/// Runs a story's sides through the load test's own harness (<see cref="LoadTestHarness"/>, as the
/// root command does): each side one harness run, traced, its --out document read back, each trace
/// through the analyzer's `slowest`. The harness's own tables go to DIR/NAME/SIDE.log with --report,
/// else nowhere: the story prints one table.
/// </summary>
public sealed class ScenarioRunner : IDisposable
{
    private readonly IScenario _story;
    private readonly DirectoryInfo _scratch;
    private readonly DirectoryInfo _traces;
    private readonly TextWriter? _progress;
    private readonly List<ModeTrace> _recorded = [];

    public ScenarioRunner(IScenario story, ScenarioSettings settings, TextWriter? progress)
    {
        ArgumentNullException.ThrowIfNull(story);
        ArgumentNullException.ThrowIfNull(settings);
        _story = story;
        Settings = settings;
        _progress = progress;
        _scratch = Directory.CreateTempSubdirectory($"taildb-scenario-{story.Name}-");
        _traces = settings.ReportDirectory is { } report ? report.CreateSubdirectory(story.Name) : _scratch;
    }

    public ScenarioSettings Settings { get; }

    /// <summary>Where a story that runs its own processes (fan-out) says what it is doing; null: nowhere.</summary>
    public TextWriter? Progress => _progress;

    /// <summary>Where the story's traces and the harness logs go (DIR/NAME with --report, else a temporary folder).</summary>
    public DirectoryInfo Traces => _traces;

    /// <summary>The default workload at the scenario's length and size; each side changes what its story is about.</summary>
    public WorkloadOptions Workload => new() { DurationSeconds = Settings.DurationSeconds, WarmupSeconds = Settings.WarmupSeconds, Keys = Settings.Keys };

    /// <summary>Runs one side: every mode of <paramref name="options"/>.Gc, each run traced and analyzed.</summary>
    /// <param name="options">What the side changes; the trace, --out, the report and runtimeconfig folder are set here.</param>
    public async Task<IReadOnlyList<SideRun>> RunSideAsync(string side, HarnessOptions options, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(options);
        _progress?.WriteLine($"{_story.Name}: {side} ({options.Gc}{(options.Repeat > 1 ? $", {options.Repeat} runs" : "")})");
        string json = Path.Combine(_scratch.FullName, $"{side}.json");
        string trace = Path.Combine(_traces.FullName, $"{side}.nettrace");
        var run = options with
        {
            OutPath = json,
            TracePath = trace,
            ReportDirectory = null,
            RuntimeConfigDirectory = Settings.RuntimeConfigDirectory ?? options.RuntimeConfigDirectory,
        };
        using var log = new StringWriter();
        var harness = new LoadTestHarness(run, log, log, showProgress: false);
        ExitCode exit = await harness.RunAsync(cancellationToken).ConfigureAwait(false);
        if (Settings.ReportDirectory is not null)
        {
            await File.WriteAllTextAsync(Path.Combine(_traces.FullName, $"{side}.log"), log.ToString(), CancellationToken.None).ConfigureAwait(false);
        }

        if (exit != ExitCode.Success)
        {
            string detail = log.ToString().Split('\n').FirstOrDefault(l => l.StartsWith("error: ", StringComparison.Ordinal))?["error: ".Length..].Trim()
                ?? $"the load test exited with {exit}";
            throw new LoadTestException(exit, $"scenario {_story.Name}, {side}: {detail}");
        }

        RunReport report = JsonSerializer.Deserialize<RunReport>(await File.ReadAllTextAsync(json, cancellationToken).ConfigureAwait(false), WorkerResult.Json)
            ?? throw new LoadTestException(ExitCode.WorkerFailed, $"scenario {_story.Name}, {side}: the load test wrote an empty result");
        var runs = new List<SideRun>();
        foreach (ModeEntry entry in report.Modes)
        {
            string? path = entry.Trace?.Path;
            string label = side + (report.Modes.Count > 1 ? $" {entry.Mode}" + (report.Runs > 1 ? $" run {entry.Run}" : "") : "");
            _progress?.WriteLine($"{_story.Name}: analyzing {label}");
            TraceFinding? finding = null;
            string? problem = "the run left no trace";
            if (path is not null)
            {
                finding = TraceFindings.TrySlowest(path, out problem);
                _recorded.Add(new ModeTrace(label, path));
            }

            TraceFinding? clientFinding = null;
            string? clientProblem = null;
            if (entry.ClientTrace?.Path is { } clientPath)
            {
                _progress?.WriteLine($"{_story.Name}: analyzing {label}'s client");
                clientFinding = TraceFindings.TrySlowest(clientPath, out clientProblem);
                _recorded.Add(new ModeTrace(label + " client", clientPath));
            }

            runs.Add(new SideRun(side, entry.Mode, entry.Run, entry.Result!, path, finding, problem)
            {
                ClientTracePath = entry.ClientTrace?.Path,
                ClientFinding = clientFinding,
                ClientAnalysisProblem = clientProblem,
            });
        }

        return runs;
    }

    /// <summary>--report: the story's traces side by side (the page `--gc all --report` writes), DIR/NAME/index.html.</summary>
    public string? WritePages()
    {
        if (Settings.ReportDirectory is null || _recorded.Count == 0)
        {
            return null;
        }

        _progress?.WriteLine($"{_story.Name}: writing the pages");
        return ModeReports.Write(_recorded, _traces.FullName).ComparisonPage;
    }

    public void Dispose()
    {
        try
        {
            _scratch.Delete(recursive: true);
        }
        catch (IOException)
        {
            // A trace still open by a process being killed; the OS temp cleaner gets it.
        }
    }
}
