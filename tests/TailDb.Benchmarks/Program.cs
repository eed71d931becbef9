using BenchmarkDotNet.Running;
using TailDb.Benchmarks.Analysis;
using TailDb.Benchmarks.Configuration;
using TailDb.Benchmarks.Stepping;

// `--park Class.Method` holds one benchmark method at tier 1 for scripts/hit-instructions.sh.
if (ParkedBenchmark.TryRun(args, out int parkedExit))
{
    return parkedExit;
}

// `--quick` picks the CI configuration (short job, small data); every other argument is
// BenchmarkDotNet's own (--filter, --artifacts, --list, ...).
var quick = args.Contains(SuiteConfig.QuickFlag);
var rest = args.Where(a => a != SuiteConfig.QuickFlag).ToArray();

// A full run parses a trace recorded fresh for it. Recorded here, in the host, once: its child
// workload runs from this build's output, and every benchmark process then finds it cached. Only
// when the run includes the analyzer benchmarks: recording it takes ~10 s.
var config = SuiteConfig.Create(quick);
TraceFixture.ClearCache();
if (!quick && !rest.Any(a => a is "--list" or "--help" or "-h" or "-?" or "--info" or "--version") && TraceFixture.NeededBy(rest, config))
{
    Console.WriteLine($"Recording the analyzer benchmarks' trace: {TraceFixture.Ensure(SuiteScale.Full)}");
}

// A clone without shared/etl beside it has no Windows trace to read: that one benchmark is left out, said in one line.
var types = typeof(SuiteConfig).Assembly.GetExportedTypes().Where(t => !t.IsAbstract && !t.IsGenericTypeDefinition && t.GetMethods().Any(m => m.IsDefined(typeof(BenchmarkDotNet.Attributes.BenchmarkAttribute), false)));
if (EtwReaderBenchmarks.Input is null)
{
    Console.WriteLine(EtwReaderBenchmarks.Missing);
    types = types.Where(t => t != typeof(EtwReaderBenchmarks));
}

var summaries = BenchmarkSwitcher.FromTypes([.. types]).Run(rest, config);
return summaries.Any(s => s.HasCriticalValidationErrors || s.Reports.Any(r => !r.Success)) ? 1 : 0;
