using TailDb.TestSupport.Cli;

namespace TailDb.Server.Tests.Cli;

/// <summary>The server's --help shows its defaults as a user would type them.</summary>
public sealed class HelpTextTests
{
    [Fact]
    public async Task EveryCommandsHelpShowsReadableDefaults()
    {
        var helps = await HelpText.EveryHelpAsync("TailDb.Server.dll");

        Assert.Contains("[default: 127.0.0.1]", helps[0].Help, StringComparison.Ordinal);
        Assert.All(helps, h => Assert.True(HelpText.UnreadableDefaults(h.Help).Count == 0, $"{h.Arguments}: {string.Join(" | ", HelpText.UnreadableDefaults(h.Help))}"));
    }
}
