using System.CommandLine;
using TailDb.Analyzer.Commands;

var root = new RootCommand("TailDb.Analyzer: which causes make the slowest requests slow, from a .nettrace")
{
    SlowestCommand.Create(),
    SummaryCommand.Create(),
    RecordCommand.Create(),
    WatchCommand.Create(),
    BucketsCommand.Create(),
    ExportCommand.Create(),
    CompareCommand.Create(),
    CaptureReportCommand.Create(),
};

return await CommandLineRunner.RunAsync(root, args, Console.Out, Console.Error);
