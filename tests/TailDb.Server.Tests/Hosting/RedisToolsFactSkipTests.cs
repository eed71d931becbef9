using TailDb.TestSupport.Skipping;

namespace TailDb.Server.Tests.Hosting;

/// <summary>Without redis-tools the skipped test's name, which `dotnet test` prints by default, names them and their install script.</summary>
public sealed class RedisToolsFactSkipTests
{
    [Fact]
    public void WithoutRedisToolsTheSkippedTestsNameSaysSoAndWhichScriptInstallsThem()
    {
        var fact = new RedisToolsFactAttribute(present: false, "Pings", "/checkout/tests/Hosting/RedisToolsTests.cs");

        Assert.Equal($"RedisToolsTests.Pings — {fact.Skip}", fact.DisplayName);
        Assert.Contains("redis-cli", fact.Skip, StringComparison.Ordinal);
        Assert.Contains(".ci/server-tools.sh", fact.Skip, StringComparison.Ordinal);
        Assert.Empty(SkipNotice.MissingScripts(fact.Skip!));
    }

    [Fact]
    public void WithRedisToolsPresentTheTestRunsUnderItsOwnName()
    {
        var fact = new RedisToolsFactAttribute(present: true, "Pings", "RedisToolsTests.cs");
        Assert.True(fact.Skip is null && fact.DisplayName is null);
    }
}
