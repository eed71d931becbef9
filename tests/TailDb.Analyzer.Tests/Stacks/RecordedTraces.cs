using TailDb.Analyzer.Sources.NetTrace;
using TailDb.Analyzer.Stacks;
using TailDb.Analyzer.Tests.TraceGen.Recording;

namespace TailDb.Analyzer.Tests.Stacks;

/// <summary>
/// Records, once for all stack tests, two traces of a child that burns CPU in a known method on
/// two threads: one stopped normally (rundown included) and one whose process is killed
/// mid-burn (no rundown); and one of the request storm, for volume.
/// </summary>
public sealed class RecordedTraces : IAsyncLifetime
{
    /// <summary>Recordings made before giving up on a killed trace cut between two objects.</summary>
    private const int MaxKillAttempts = 5;

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

        // The runtime's streaming thread writes each block in a dozen small writes, and the
        // recorder keeps every byte the child wrote, so a killed trace that ends inside an object
        // was killed between two of those writes. The reader rightly reports it as truncated
        // (NetTraceFaultTests cover that case); a loaded CI run once handed these tests one.
        // They need the other outcome, a cut between two objects: a recording whose kill landed
        // inside an object is made again, with a fresh child.
        var cuts = new List<string>();
        while (true)
        {
            await using (var recording = await ChildRecording.StartAsync(Killed, "burn", "2", "60000"))
            {
                // Counted from when the child burns, not from its start: at load 40 start-up alone
                // outlasted a fixed 1.2 s and the killed trace held no sample of the known frame.
                await recording.KillAsync(after: TimeSpan.FromMilliseconds(1200), limit: TimeSpan.FromSeconds(60), afterLine: TraceGen.Program.BurningLine);
            }

            if (CutInsideAnObject(Killed) is not { } cut)
            {
                break;
            }

            cuts.Add(cut);
            if (cuts.Count == MaxKillAttempts)
            {
                throw new InvalidOperationException(
                    $"{MaxKillAttempts} killed recordings in a row ended inside an object, none between two: {string.Join("; ", cuts)}");
            }
        }
    }

    /// <summary>Where a killed trace ends, by the framing alone: null between two objects,
    /// else the truncation the reader reports.</summary>
    private static string? CutInsideAnObject(string path)
    {
        using var stream = new NetTraceObjectStream(path);
        try
        {
            stream.ReadStreamHeader();
            while (stream.TryBeginObject(out var typeName, out _))
            {
                if (typeName == "Trace")
                {
                    stream.ReadTraceObjectFields();
                }
                else
                {
                    stream.ReadBlock(typeName, out _);
                }
            }

            return null;
        }
        catch (TraceFormatException e) when (e.Problem == TraceFormatProblem.Truncated)
        {
            return e.Message;
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
