using System.CommandLine;
using TailDb.Benchmarks.Compare.Commands;

var root = new RootCommand("TailDb benchmark results: CI comparison against a baseline, and the performance goals")
{
    CompareCommand.Create(),
    GoalsCommand.Create(),
};
return root.Parse(args).Invoke();
