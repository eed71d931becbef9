using System.CommandLine;
using TailDb.Analyzer;
using TailDb.Analyzer.Commands;
using TailDb.Analyzer.Stacks;

var root = new RootCommand("TailDb.Analyzer: which causes make the slowest requests slow, from a .nettrace")
{
    SlowestCommand.Create(name => name == "tracelog" ? new TraceLogStackSampleReader() : new NetTraceStackSampleReader()),
    SummaryCommand.Create(),
    RecordCommand.Create(),
};

try
{
    return await root.Parse(args).InvokeAsync(new InvocationConfiguration { EnableDefaultExceptionHandler = false });
}
catch (AnalyzerException e)
{
    Console.Error.WriteLine($"error: {e.Message}");
    return (int)e.ExitCode;
}
