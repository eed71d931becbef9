using Microsoft.Diagnostics.Tracing;

namespace TailDb.Analyzer.Sources.Etw;

/// <summary>One process of a machine-wide trace: its name, its GCs, its requests of the chosen activity.</summary>
internal sealed record EtwProcess(int Id, string Name, long Gcs, long Requests);

/// <summary>
/// A first pass over an ETW trace (machine-wide, unlike a .nettrace) that counts, per process, the
/// GCs and the Start events of the chosen request activity, and lists every Start/Stop activity the
/// trace holds, so a report can choose the process and say why, or say which activities it has.
/// </summary>
internal sealed class EtwProcessCensus
{
    private EtwProcessCensus(IReadOnlyList<EtwProcess> processes, IReadOnlyList<string> startStopActivities)
    {
        Processes = processes;
        StartStopActivities = startStopActivities;
    }

    /// <summary>Processes with GCs or requests, most requests first, then most GCs.</summary>
    public IReadOnlyList<EtwProcess> Processes { get; }

    /// <summary>"Provider/Task" of every event with the Start opcode, any process.</summary>
    public IReadOnlyList<string> StartStopActivities { get; }

    public static EtwProcessCensus Take(string path, RequestSelection selection)
    {
        ArgumentNullException.ThrowIfNull(selection);
        var names = new Dictionary<int, string>();
        var gcs = new Dictionary<int, long>();
        var requests = new Dictionary<int, long>();
        var activities = new SortedSet<string>(StringComparer.Ordinal);
        using (var source = new EtwEventSource(path))
        {
            source.Kernel.ProcessStartGroup += data => names[data.ProcessID] = Path.GetFileNameWithoutExtension(data.ImageFileName);
            source.Clr.GCStart += data => gcs[data.ProcessID] = gcs.GetValueOrDefault(data.ProcessID) + 1;
            source.Dynamic.All += data =>
            {
                if (data.Opcode != TraceEventOpcode.Start)
                {
                    return;
                }

                var task = RequestSelection.Stem(data.TaskName ?? "");
                activities.Add($"{data.ProviderName}/{task}");
                if (IsRequest(selection, data.ProviderName, task))
                {
                    requests[data.ProcessID] = requests.GetValueOrDefault(data.ProcessID) + 1;
                }
            };
            source.Process();
        }

        var processes = gcs.Keys.Union(requests.Keys)
            .Select(id => new EtwProcess(id, names.GetValueOrDefault(id) ?? $"Process({id})", gcs.GetValueOrDefault(id), requests.GetValueOrDefault(id)))
            .OrderByDescending(p => p.Requests).ThenByDescending(p => p.Gcs).ThenBy(p => p.Id)
            .ToList();
        return new EtwProcessCensus(processes, [.. activities]);
    }

    private static bool IsRequest(RequestSelection selection, string provider, string task)
    {
        if (selection.Auto)
        {
            return (provider == RequestSelection.TailDb.Provider && RequestSelection.TailDb.IsRequest(task))
                || (provider == RequestSelection.LoadTest.Provider && RequestSelection.LoadTest.IsRequest(task));
        }

        return string.Equals(provider, selection.Provider, StringComparison.OrdinalIgnoreCase) && selection.IsRequest(task);
    }
}

/// <summary>--pid / --process: which process of a machine-wide trace to analyze; null fields: the default.</summary>
internal sealed record ProcessChoice(int? Id, string? Name)
{
    public static ProcessChoice Default { get; } = new(null, null);

    public bool IsDefault => Id is null && Name is null;

    /// <summary>The process to analyze and one sentence saying which and why; null id: the whole trace.</summary>
    public (int? Id, string Description) Resolve(EtwProcessCensus census, string path)
    {
        ArgumentNullException.ThrowIfNull(census);
        var all = census.Processes;
        if (Id is { } id)
        {
            var named = all.FirstOrDefault(p => p.Id == id);
            return named is null
                ? throw new AnalyzerException(ExitCode.BadArguments, $"{path}: --pid {id}: no GC or request events of that process (processes with some: {List(all)})")
                : (id, $"process {id} ({named.Name}), chosen by --pid; {Count(all)}");
        }

        if (Name is { } name)
        {
            var matches = all.Where(p => string.Equals(p.Name, name, StringComparison.OrdinalIgnoreCase)).ToList();
            return matches.Count switch
            {
                1 => (matches[0].Id, $"process {matches[0].Id} ({matches[0].Name}), chosen by --process; {Count(all)}"),
                0 => throw new AnalyzerException(ExitCode.BadArguments, $"{path}: --process {name}: no process of that name has GC or request events (processes with some: {List(all)})"),
                _ => throw new AnalyzerException(ExitCode.BadArguments, $"{path}: --process {name}: {matches.Count} processes of that name ({string.Join(", ", matches.Select(m => m.Id))}); choose one with --pid"),
            };
        }

        if (all.Count == 0)
        {
            return (null, "the whole trace (no process in it has GC or request events)");
        }

        var chosen = all[0];
        var why = chosen.Requests > 0 ? $"the most requests ({chosen.Requests:N0})" : $"the most GCs ({chosen.Gcs:N0})";
        return (chosen.Id, $"process {chosen.Id} ({chosen.Name}), the one with {why}; {Count(all)} (choose with --pid/--process)");
    }

    private static string Count(IReadOnlyList<EtwProcess> all) => $"{all.Count} process{(all.Count == 1 ? "" : "es")} in this machine-wide ETW trace have GC or request events";

    private static string List(IReadOnlyList<EtwProcess> all) =>
        all.Count == 0 ? "none" : string.Join(", ", all.Take(8).Select(p => $"{p.Id} {p.Name}")) + (all.Count > 8 ? ", ..." : "");
}
