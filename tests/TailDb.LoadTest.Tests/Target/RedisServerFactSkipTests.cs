using TailDb.TestSupport.Skipping;

namespace TailDb.LoadTest.Tests.Target;

/// <summary>Without redis-server the skipped test's name, which `dotnet test` prints by default, names it and its install script.</summary>
public sealed class RedisServerFactSkipTests
{
    [Fact]
    public void WithoutRedisServerTheSkippedTestsNameSaysSoAndWhichScriptInstallsIt()
    {
        var fact = new RedisServerFactAttribute(present: false, "Answers", "/checkout/tests/Target/RedisServerTests.cs");

        Assert.Equal($"RedisServerTests.Answers — {fact.Skip}", fact.DisplayName);
        Assert.Contains("redis-server", fact.Skip, StringComparison.Ordinal);
        Assert.Contains(".ci/server-tools.sh", fact.Skip, StringComparison.Ordinal);
        Assert.Empty(SkipNotice.MissingScripts(fact.Skip!));
    }

    [Fact]
    public void WithRedisServerPresentTheTestRunsUnderItsOwnName()
    {
        var fact = new RedisServerFactAttribute(present: true, "Answers", "RedisServerTests.cs");
        Assert.True(fact.Skip is null && fact.DisplayName is null);
    }
}
