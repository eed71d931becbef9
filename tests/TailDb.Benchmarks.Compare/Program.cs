using TailDb.Benchmarks.Compare.Commands;

return CompareCommand.Create().Parse(args).Invoke();
