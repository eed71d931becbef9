using System.Text.Json;
using TailDb.LoadTest.Reporting;

namespace TailDb.LoadTest.Harness;

/// <summary>The harness's last stage: the --out document, the --report pages, the problems and the exit code.</summary>
public sealed partial class LoadTestHarness
{
    /// <summary>
    /// Report: the --out document and the --report pages, then every problem as one line; the first
    /// problem's code is the exit code (<see cref="ExitCode.Interrupted"/> after a stop).
    /// </summary>
    private ExitCode Report(HarnessPlan plan, List<ModeReport> reports, CancellationToken cancellationToken)
    {
        var (targets, runs, machine) = (plan.Targets, plan.Runs, plan.Machine);
        if (_options.OutPath is { } jsonPath)
        {
            WriteJson(jsonPath, machine, reports, cancellationToken.IsCancellationRequested);
        }

        var problems = reports.SelectMany(r => r.Problems).ToList();
        if (_options.ReportDirectory is { } directory)
        {
            if (cancellationToken.IsCancellationRequested)
            {
                _out.WriteLine("report: not written (interrupted)");
            }
            else
            {
                problems.AddRange(HtmlReport.Write(directory, reports, runs, targets.Count, _out, _progress is null ? null : _error));
            }
        }

        Problem? first = null;
        foreach (Problem problem in problems)
        {
            _error.WriteLine($"error: {problem.Message}");
            first ??= problem;
        }

        if (cancellationToken.IsCancellationRequested)
        {
            _error.WriteLine("interrupted: printed what was measured before the stop");
            return ExitCode.Interrupted;
        }

        return first?.Code ?? ExitCode.Success;
    }

    private void WriteJson(string path, MachineInfo machine, IReadOnlyList<ModeReport> reports, bool interrupted)
    {
        var document = new RunReport
        {
            Machine = machine,
            Workload = _options.Workload,
            Interrupted = interrupted,
            Runs = _options.Repeat,
            Modes = reports.Select(r => new ModeEntry(r.Mode.Name, r.Mode.RuntimeConfigPath, r.Result, r.Trace, r.Problems.Select(p => p.Message).ToList(), r.Run, r.TruthPath, r.ClientTrace)).ToList(),
        };
        try
        {
            File.WriteAllText(path, JsonSerializer.Serialize(document, WorkerResult.Json));
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            throw new LoadTestException(ExitCode.OutputFailed, $"--out: cannot write {path}: {e.Message}");
        }
    }
}
