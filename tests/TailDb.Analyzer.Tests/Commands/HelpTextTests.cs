using TailDb.TestSupport.Cli;

namespace TailDb.Analyzer.Tests.Commands;

/// <summary>Every command's --help shows its defaults as a user would type them, never as an object dump.</summary>
public sealed class HelpTextTests
{
    [Fact]
    public async Task EveryCommandsHelpShowsReadableDefaults()
    {
        var helps = await HelpText.EveryHelpAsync("TailDb.Analyzer.dll");

        Assert.Contains(helps, h => h.Arguments == "watch --help");
        Assert.Contains(helps, h => h.Help.Contains("[default: ", StringComparison.Ordinal));
        Assert.All(helps, h => Assert.True(HelpText.UnreadableDefaults(h.Help).Count == 0, $"{h.Arguments}: {string.Join(" | ", HelpText.UnreadableDefaults(h.Help))}"));
    }

    [Fact]
    public void ARecordDumpATypeNameOrADefaultThatIsNoneOfTheChoicesIsCaught()
    {
        Assert.Equal(3, HelpText.UnreadableDefaults(
            "  --target <in-process>  Target [default: TargetAddress { Kind = InProcess, Host = , Port = 0 }]\n" +
            "  --captures <DIR>  Where [default: System.IO.DirectoryInfo]\n" +
            "  --format <text|json>  Format [default: text]\n" +
            "  --api <zero-copy|copy>  Read API [default: ZeroCopy]\n" +
            "  --phase <measured|warmup|fill|all>  Which phase [default: Auto]\n").Count);
    }
}
