using TailDb.TestSupport.Cli;

namespace TailDb.LoadTest.Tests.Commands;

/// <summary>The load test's --help (and each command's) shows its defaults as a user would type them: --target's is "in-process", not a record dump.</summary>
public sealed class HelpTextTests
{
    [Fact]
    public async Task EveryCommandsHelpShowsReadableDefaults()
    {
        var helps = await HelpText.EveryHelpAsync("TailDb.LoadTest.dll");

        Assert.Contains("[default: in-process]", helps[0].Help, StringComparison.Ordinal);
        Assert.All(helps, h => Assert.True(HelpText.UnreadableDefaults(h.Help).Count == 0, $"{h.Arguments}: {string.Join(" | ", HelpText.UnreadableDefaults(h.Help))}"));
    }
}
