using TailDb.LoadTest.Harness;
using TailDb.Tracing.Recording;

namespace TailDb.LoadTest.Tests.Harness;

public class WorkerLaunchTests
{
    private static readonly GcMode Server = GcMode.Resolve("server").Single();

    [Fact]
    public void WorkerIsThisAssemblyUnderDotnetExecWithTheModesRuntimeConfig()
    {
        var startInfo = WorkerLaunch.Create(Server, "/tmp/spec.json");

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
    public void ChildEnvironmentHasNoGcVariablesAndNoInheritedSuspend()
    {
        var environment = new Dictionary<string, string?>
        {
            ["DOTNET_gcServer"] = "1",
            [DiagnosticPortListener.DefaultSuspendVariable] = "1",
            [DiagnosticPortListener.PortsVariable] = "/tmp/elsewhere.sock,connect,suspend",
            ["PATH"] = "/usr/bin",
        };

        WorkerLaunch.RemoveInherited(environment);

        Assert.Equal(["PATH"], environment.Keys);
        Assert.DoesNotContain(WorkerLaunch.Create(Server, "/tmp/spec.json").Environment.Keys, WorkerLaunch.IsGcVariable);
    }

    [Fact]
    public async Task ATracedWorkerWaitsOnItsOwnPortUntilTheSessionResumesIt()
    {
        var startInfo = WorkerLaunch.Create(Server, "/tmp/spec.json");
        await using var port = DiagnosticPortListener.Open();
        port.Configure(startInfo);

        Assert.Equal(port.Address + ",connect,suspend", startInfo.Environment[DiagnosticPortListener.PortsVariable]);
        Assert.True(File.Exists(port.Address), "the listener's socket exists before any child starts");
    }
}
