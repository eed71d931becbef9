using TailDb.LoadTest.GcModes;
using TailDb.LoadTest.Harness;

namespace TailDb.LoadTest.Tests.Harness;

public class WorkerLaunchTests
{
    private static readonly GcMode Server = GcMode.Resolve("server").Single();

    [Fact]
    public void WorkerIsThisAssemblyUnderDotnetExecWithTheModesRuntimeConfig()
    {
        var startInfo = WorkerLaunch.Create(Server, "/tmp/spec.json", suspendForTrace: false);

        Assert.Equal("dotnet", Path.GetFileNameWithoutExtension(startInfo.FileName));
        Assert.True(File.Exists(startInfo.FileName) || startInfo.FileName == "dotnet");
        Assert.Equal(
            ["exec", "--runtimeconfig", Server.RuntimeConfigPath, typeof(WorkerLaunch).Assembly.Location, "worker", "--spec", "/tmp/spec.json"],
            startInfo.ArgumentList);
        Assert.True(startInfo.RedirectStandardInput);
    }

    [Theory]
    [InlineData("DOTNET_gcServer", true)]
    [InlineData("DOTNET_GCgen0size", true)]
    [InlineData("COMPlus_gcConcurrent", true)]
    [InlineData("complus_GCHeapCount", true)]
    [InlineData("DOTNET_TieredPGO", false)]
    [InlineData("GCSETTING", false)]
    public void GcVariablesAreRecognisedInAnyCase(string name, bool removed)
    {
        Assert.Equal(removed, WorkerLaunch.IsGcVariable(name));
    }

    [Fact]
    public void ChildEnvironmentHasNoGcVariablesAndSuspendsOnlyWhenTraced()
    {
        var plain = WorkerLaunch.Create(Server, "/tmp/spec.json", suspendForTrace: false);
        var traced = WorkerLaunch.Create(Server, "/tmp/spec.json", suspendForTrace: true);

        Assert.DoesNotContain(plain.Environment.Keys, WorkerLaunch.IsGcVariable);
        Assert.False(plain.Environment.ContainsKey(WorkerLaunch.SuspendVariable));
        Assert.Equal("1", traced.Environment[WorkerLaunch.SuspendVariable]);
    }
}
