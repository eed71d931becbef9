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

var parsed = root.Parse(args);
if (parsed.Errors.Count > 0)
{
    // One line per mistake, each naming the flag or argument, and the bad-arguments exit code.
    foreach (var error in parsed.Errors)
    {
        Console.Error.WriteLine($"error: {string.Join(" ", error.Message.Split((char[])['\r', '\n', '\t'], StringSplitOptions.RemoveEmptyEntries))}");
    }

    return (int)ExitCode.BadArguments;
}

try
{
    return await parsed.InvokeAsync(new InvocationConfiguration { EnableDefaultExceptionHandler = false });
}
catch (AnalyzerException e)
{
    Console.Error.WriteLine($"error: {e.Message}");
    return (int)e.ExitCode;
}
