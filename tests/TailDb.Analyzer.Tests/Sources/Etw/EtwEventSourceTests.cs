using System.Globalization;
using System.Text;
using Microsoft.Diagnostics.Tracing;
using Microsoft.Diagnostics.Tracing.Parsers;
using Microsoft.Diagnostics.Tracing.Parsers.Clr;
using TailDb.Analyzer.Sources.Etw;
using Xunit.Abstractions;

namespace TailDb.Analyzer.Tests.Sources.Etw;

/// <summary>
/// The managed ETW reader against the oracle: real Windows traces and what TraceEvent read from them
/// on Windows (shared/etl). Every trace is read; every baseline count and printed event must match.
/// </summary>
public sealed class EtwEventSourceTests(ITestOutputHelper output)
{
    [SharedEtlFact]
    public void TheSelfDescribingTraceParsesWithoutError()
    {
        var result = OracleRun.Read(SharedEtl.Path("SelfDescribingSingleEvent.etl"));
        output.WriteLine($"{result.Events} events; {string.Join(", ", result.Counts.Select(c => $"{c.Key}:{c.Value}"))}");
        Assert.True(result.Events > 0);
        Assert.Equal(0, result.NotRead);
    }

    [SharedEtlFact]
    public void EveryTraceIsReadWithTheBaselinesCountsAndPayloads()
    {
        var table = new StringBuilder();
        table.AppendLine(CultureInfo.InvariantCulture, $"{"trace",-34} {"events read",12} {"event types",11} {"count mismatches",16} {"payload mismatches",18} {"not read",9}");
        var failures = new List<string>();
        var explained = new List<string>();
        var payloadNotes = new List<string>();
        void Note(string? reason, string line)
        {
            if (reason is null)
            {
                failures.Add(line);
            }
            else
            {
                explained.Add($"{line} ({reason})");
            }
        }

        foreach (var trace in SharedEtl.Traces())
        {
            var result = OracleRun.Read(trace);
            var baseline = EtwBaseline.For(trace);
            var countMismatches = 0;
            var eventMismatches = 0;
            if (baseline is not null)
            {
                foreach (var (name, expected) in baseline.Counts)
                {
                    var actual = result.Counts.GetValueOrDefault(name);
                    if (actual != expected)
                    {
                        countMismatches++;
                        Note(EtwBaseline.ExplainedCountDifference(name), $"{Path.GetFileName(trace)}: COUNT {name}: expected {expected}, read {actual}");
                    }
                }

                foreach (var (name, actual) in result.Counts.Where(c => !baseline.Counts.ContainsKey(c.Key)))
                {
                    countMismatches++;
                    Note(EtwBaseline.ExplainedCountDifference(name), $"{Path.GetFileName(trace)}: COUNT {name}: not in the baseline, read {actual}");
                }

                foreach (var (name, lines) in baseline.Events)
                {
                    var ours = result.Printed.GetValueOrDefault(name) ?? [];
                    for (var i = 0; i < lines.Count; i++)
                    {
                        var expected = EtwBaseline.WithoutProcessName(lines[i]);
                        var actual = i < ours.Count ? EtwBaseline.WithoutProcessName(ours[i]) : "(none)";
                        if (expected != actual)
                        {
                            eventMismatches++;
                            payloadNotes.Add($"{Path.GetFileName(trace)}: EVENT {name} #{i + 1}\n  expected {expected}\n  read     {actual}");
                        }
                    }
                }
            }

            table.AppendLine(CultureInfo.InvariantCulture,
                $"{Path.GetFileName(trace),-34} {result.Events,12:N0} {result.Counts.Count,11} {(baseline is null ? "no baseline" : countMismatches.ToString(CultureInfo.InvariantCulture)),16} {(baseline is null ? "-" : eventMismatches.ToString(CultureInfo.InvariantCulture)),18} {result.NotRead,9:N0}");
            if (result.NotReadDescription is not null)
            {
                table.AppendLine(CultureInfo.InvariantCulture, $"  {result.NotReadDescription}");
            }
        }

        output.WriteLine(table.ToString());
        output.WriteLine($"Count differences with a known cause ({explained.Count}):");
        explained.ForEach(output.WriteLine);
        output.WriteLine($"Unexplained count differences ({failures.Count}):");
        failures.ForEach(output.WriteLine);
        output.WriteLine($"Printed events that differ ({payloadNotes.Count}; docs/etl.md says why):");
        payloadNotes.ForEach(output.WriteLine);

        // Counts are the contract: every baseline count is met but those the list names with a cause.
        Assert.True(failures.Count == 0, $"{failures.Count} unexplained count differences; the first: {failures.FirstOrDefault()}");

        // The printed events of the pure CLR trace match value for value (time, ids, processor, length, payload).
        Assert.DoesNotContain(payloadNotes, n => n.StartsWith("gcevents.etl.zip", StringComparison.Ordinal));
    }
}

/// <summary>One pass over a shared trace with the parsers TraceLog attaches, counted as the baseline counts.</summary>
internal sealed record OracleRun(long Events, Dictionary<string, long> Counts, Dictionary<string, List<string>> Printed, long NotRead, string? NotReadDescription, Dictionary<string, long> FoldedByTraceLog)
{
    public static OracleRun Read(string path)
    {
        using var source = new EtwEventSource(path);
        var counts = new Dictionary<string, long>(StringComparer.Ordinal);
        var printed = new Dictionary<string, List<string>>(StringComparer.Ordinal);
        var folded = new Dictionary<string, long>(StringComparer.Ordinal);
        long events = 0;
        Attach(source);
        source.AllEvents += data =>
        {
            events++;
            if (EtwBaseline.Skipped(data))
            {
                return;
            }

            if (EtwBaseline.FoldedByTraceLog(data) is { } reason)
            {
                folded[reason] = folded.GetValueOrDefault(reason) + 1;
                return;
            }

            var name = data.ProviderName + "/" + data.EventName;
            var count = counts[name] = counts.GetValueOrDefault(name) + 1;
            if (count <= EtwBaseline.EventsPerName)
            {
                if (!printed.TryGetValue(name, out var list))
                {
                    printed[name] = list = [];
                }

                list.Add(EtwBaseline.Format(data));
            }
        };
        source.Process();
        return new OracleRun(events, counts, printed, source.Counts.SkippedTotal, source.Counts.Describe(), folded);
    }

    private static void Attach(TraceEventDispatcher source)
    {
        Action<TraceEvent> none = _ => { };
        source.Kernel.All += none;
        source.Clr.All += none;
        new ClrRundownTraceEventParser(source).All += none;
        new ClrPrivateTraceEventParser(source).All += none;
        new SymbolTraceEventParser(source).All += none;
        source.Dynamic.All += none;
    }
}
