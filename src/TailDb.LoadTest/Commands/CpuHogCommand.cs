using System.CommandLine;
using TailDb.LoadTest.Injections;

namespace TailDb.LoadTest.Commands;

/// <summary>The hidden `cpu-hog` command: the other process of the cpu-hog injection (<see cref="CpuHog"/>).</summary>
public static class CpuHogCommand
{
    private static readonly Option<int> CpuOption = new("--cpu") { Description = "The CPU to pin to", DefaultValueFactory = _ => CpuHog.Cpu };

    public static Command Create()
    {
        var command = new Command(CpuHog.CommandName, "Spins on one CPU when told to (started by --inject cpu-hog)") { Hidden = true };
        command.Options.Add(CpuOption);
        command.SetAction(parsed => CpuHog.Run(parsed.GetValue(CpuOption), Console.In, Console.Out));
        return command;
    }
}
