using BenchmarkDotNet.Running;
using TailDb.Benchmarks.Analysis;
using TailDb.Benchmarks.Configuration;

// `--quick` picks the CI configuration (short job, small data); every other argument is
// BenchmarkDotNet's own (--filter, --artifacts, --list, ...).
var quick = args.Contains(SuiteConfig.QuickFlag);
var rest = args.Where(a => a != SuiteConfig.QuickFlag).ToArray();

// A full run records its own trace once, in whichever benchmark process needs it first.
TraceFixture.ClearCache();
var summaries = BenchmarkSwitcher.FromAssembly(typeof(SuiteConfig).Assembly).Run(rest, SuiteConfig.Create(quick));
return summaries.Any(s => s.HasCriticalValidationErrors || s.Reports.Any(r => !r.Success)) ? 1 : 0;
