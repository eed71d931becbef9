using TailDb.Analyzer.Tests.TraceGen.Recording;

namespace TailDb.Analyzer.Tests.Stacks;

/// <summary>
/// Records, once for all stack tests, two traces of a child that burns CPU in a known method on
/// two threads: one stopped normally (rundown included) and one whose process is killed
/// mid-burn (no rundown); and one of the request storm, for volume.
/// </summary>
public sealed class RecordedTraces : IAsyncLifetime
{
    private readonly string _directory = System.IO.Directory.CreateTempSubdirectory("taildb-stacks-").FullName;

    public string Complete => Path.Combine(_directory, "burn.nettrace");

    public string Killed => Path.Combine(_directory, "killed.nettrace");

    /// <summary>A second of the request storm: TailDb events with stacks, GCs, and several
    /// sequence points (after each of which stack ids restart).</summary>
    public string Storm => Path.Combine(_directory, "storm.nettrace");

    public string Directory => _directory;

    public async Task InitializeAsync()
    {
        await using (var recording = await ChildRecording.StartAsync(Complete, "burn", "2", "1200"))
        {
            await recording.CompleteAsync(TimeSpan.FromSeconds(60));
        }

        await using (var recording = await ChildRecording.StartAsync(Storm, "storm", "2", "1"))
        {
            await recording.CompleteAsync(TimeSpan.FromSeconds(60));
        }

        await using (var recording = await ChildRecording.StartAsync(Killed, "burn", "2", "60000"))
        {
            // Counted from when the child burns, not from its start: at load 40 start-up alone
            // outlasted a fixed 1.2 s and the killed trace held no sample of the known frame.
            await recording.KillAsync(after: TimeSpan.FromMilliseconds(1200), limit: TimeSpan.FromSeconds(60), afterLine: TraceGen.Program.BurningLine);
        }
    }

    public Task DisposeAsync()
    {
        System.IO.Directory.Delete(_directory, recursive: true);
        return Task.CompletedTask;
    }
}

[CollectionDefinition(Name)]
public sealed class RecordedTracesGroup : ICollectionFixture<RecordedTraces>
{
    public const string Name = "recorded stack traces";
}
