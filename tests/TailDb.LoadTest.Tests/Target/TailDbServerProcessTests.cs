using TailDb.LoadTest.Target;
using TailDb.LoadTest.Workloads;

namespace TailDb.LoadTest.Tests.Target;

/// <summary>The server the harness starts must not outlive the harness, however the harness ends.</summary>
public sealed class TailDbServerProcessTests : IDisposable
{
    private readonly DirectoryInfo _scratch = Directory.CreateTempSubdirectory("taildb-server-process-");

    public void Dispose() => _scratch.Delete(recursive: true);

    [Fact]
    public async Task A_started_server_stops_by_itself_when_its_parents_end_of_stdin_closes_as_a_SIGKILLed_harness_would_leave_it()
    {
        using TailDbServerProcess server = TailDbServerProcess.Start(GcMode.Resolve("workstation")[0], new WorkloadOptions(), _scratch.FullName, port: null);
        await server.WaitListeningAsync(TimeSpan.FromSeconds(60), CancellationToken.None);

        server.CloseInput();

        Task stopped = await Task.WhenAny(server.Exited, Task.Delay(TimeSpan.FromSeconds(60)));
        Assert.Same(server.Exited, stopped);
        Assert.True(server.HasExited);
    }
}
