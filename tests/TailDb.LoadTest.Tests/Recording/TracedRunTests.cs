using Microsoft.Diagnostics.Tracing;
using Microsoft.Diagnostics.Tracing.Etlx;
using TailDb.LoadTest.Recording;
using TailDb.Tracing.Recording;
using TailDb.LoadTest.Tests.Harness;

namespace TailDb.LoadTest.Tests.Recording;

[Collection(WorkerProcessesGroup.Name)]
public sealed class TracedRunTests : IDisposable
{
    private readonly DirectoryInfo _scratch = Directory.CreateTempSubdirectory("taildb-loadtest-trace-");

    public void Dispose() => _scratch.Delete(recursive: true);

    [Fact]
    public async Task TracedRunRecordsTailDbRequestsWithActivityIdsAndGcEvents()
    {
        string path = Path.Combine(_scratch.FullName, "run.nettrace");

        var result = await LoadTestProcess.RunAsync(["--gc", "workstation", "--trace", path, "--trace-level", "store", "--sampler", "eventpipe", .. LoadTestProcess.ShortRun]);

        Assert.True(result.ExitCode == 0, $"exit {result.ExitCode}\n{result.Stdout}\n{result.Stderr}");
        Assert.Contains("0 lost", result.Stdout, StringComparison.Ordinal);

        var starts = new Dictionary<Guid, string>();
        int paired = 0, emptyIds = 0, gcStarts = 0, gcSuspends = 0;
        using (var source = new EventPipeEventSource(path))
        {
            source.Clr.GCStart += _ => gcStarts++;
            source.Clr.GCSuspendEEStart += _ => gcSuspends++;
            source.Dynamic.All += e =>
            {
                if (e.ProviderName != RecordingProviders.TailDb || e.Opcode is not (TraceEventOpcode.Start or TraceEventOpcode.Stop))
                {
                    return;
                }

                if (e.ActivityID == Guid.Empty)
                {
                    emptyIds++;
                }
                else if (e.Opcode == TraceEventOpcode.Start)
                {
                    starts[e.ActivityID] = e.TaskName;
                }
                else if (starts.Remove(e.ActivityID, out string? task) && task == e.TaskName)
                {
                    paired++;
                }
            };
            source.Process();
        }

        // The workload's warm-up and measured phase send a few thousand requests, all after the
        // session started (the worker was suspended until then), and the store fill before them.
        Assert.True(paired > 3000, $"{paired} Start/Stop pairs");
        Assert.Equal(0, emptyIds);
        Assert.True(gcStarts > 0, "the handler's garbage forces GCs, which the runtime provider must have recorded");
        Assert.True(gcSuspends >= gcStarts);

        // Event stacks are off by default (they are most of the tracing cost); CPU samples keep theirs.
        string etlx = TraceLog.CreateFromEventPipeDataFile(path, Path.Combine(_scratch.FullName, "run.etlx"));
        using var log = new TraceLog(etlx);
        var samples = log.Events.Where(e => e.ProviderName == RecordingProviders.SampleProfiler).ToList();
        Assert.NotEmpty(samples);
        Assert.All(samples, e => Assert.NotNull(e.CallStack()));
        Assert.All(log.Events.Where(e => e.ProviderName == RecordingProviders.TailDb).Take(1000), e => Assert.Null(e.CallStack()));
    }
}
