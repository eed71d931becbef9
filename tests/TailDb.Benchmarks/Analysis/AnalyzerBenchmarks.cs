using BenchmarkDotNet.Attributes;
using Microsoft.Diagnostics.Tracing;
using Microsoft.Diagnostics.Tracing.Etlx;
using TailDb.Analyzer.Attribution;
using TailDb.Analyzer.Computers;
using TailDb.Analyzer.Reports;
using TailDb.Analyzer.Sources;
using TailDb.Analyzer.Stacks;
using TailDb.Benchmarks.Configuration;
using TailDb.Benchmarks.Fixtures;

namespace TailDb.Benchmarks.Analysis;

/// <summary>
/// One pass over the same trace: TraceLog's conversion to ETLX (the baseline: what any
/// stack-resolving TraceEvent tool pays before reading one stack) against the analyzer's routes:
/// the whole `slowest` pipeline, its fast stack reader alone, and a bare EventPipeEventSource pass.
/// Goal: the analyzer at least 2x faster than the conversion. Events/s is the trace's event count
/// over the mean.
/// </summary>
[BenchmarkCategory(Categories.Analyzer)]
public class AnalyzerBenchmarks
{
    private string _trace = "";
    private string _etlx = "";

    [GlobalSetup]
    public void Setup()
    {
        _trace = TraceFixture.Ensure(SuiteScale.Current);
        _etlx = Path.Combine(Path.GetTempPath(), $"taildb-bench-{Environment.ProcessId}.etlx");
    }

    [GlobalCleanup]
    public void Cleanup() => File.Delete(_etlx);

    [Benchmark(Baseline = true)]
    [AllocationNoise(131_072, "TraceEvent's own conversion (not TailDb code) allocates on background threads, which MemoryDiagnoser counts: a quiet fresh-clone CI run measured +74,248 B/op (0.11%) over the baseline recorded at load 24-48")]
    public long TraceLogConvert()
    {
        TraceLog.CreateFromEventPipeDataFile(_trace, _etlx);
        var length = new FileInfo(_etlx).Length;
        File.Delete(_etlx);
        return length;
    }

    /// <summary>`TailDb.Analyzer slowest trace.nettrace` minus the console: the streaming pass
    /// with every computer, the fast stack reader, attribution of the slowest 1%, and the text
    /// report rendered (to a null writer).</summary>
    [Benchmark]
    public int AnalyzerSlowest()
    {
        var report = SlowestAnalysis.Run(new SlowestSettings(_trace, RequestSelection.TailDb), new NetTraceStackSampleReader());
        TextReportWriter.Write(report, TextWriter.Null);
        return report.GetHashCode();
    }

    /// <summary>The samples' stacks, resolved to method names, without ETLX (the analyzer's reader).</summary>
    [Benchmark]
    public int FastStackReader() => new NetTraceStackSampleReader().Read(_trace).Samples.Count;

    /// <summary>EventPipeEventSource with every event parsed (dynamic and CLR parsers): the
    /// stack-free pass the analyzer's computers subscribe to.</summary>
    [Benchmark]
    public long EventPipeStreamingPass()
    {
        using var source = new EventPipeEventSource(_trace);
        long events = 0;
        source.AllEvents += _ => events++;
        source.Process();
        return events;
    }
}
