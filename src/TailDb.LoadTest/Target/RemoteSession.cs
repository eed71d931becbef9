using System.Diagnostics;
using HdrHistogram;
using TailDb.LoadTest.Diagnostics;
using TailDb.LoadTest.NoGc;
using TailDb.LoadTest.Harness;
using TailDb.LoadTest.Measurement;
using TailDb.LoadTest.Reporting;
using TailDb.LoadTest.Workloads;
using TailDb.Tracing;

namespace TailDb.LoadTest.Target;

/// <summary>
/// The worker's life against a networked target: the same plan, phases and schedule as in-process
/// (<see cref="WorkerSession"/>), with the store replaced by a RESP server. The fill SETs every key
/// and then GETs each once (the in-process fill writes and reads them too); the handler garbage of
/// --app-alloc is the server's business, so the client makes none.
/// </summary>
public sealed class RemoteSession
{
    private readonly WorkerSpec _spec;
    private readonly TextWriter _progress;

    public RemoteSession(WorkerSpec spec, TextWriter progress)
    {
        _spec = spec;
        _progress = progress;
    }

    private const int ControlTimeoutMilliseconds = 15_000;

    public WorkerResult Run(CancellationToken cancellationToken)
    {
        WorkloadOptions workload = _spec.Workload;
        TargetAddress target = _spec.Target;
        // PING and INFO are control, not measured requests: --timeout-ms (1 s by default) bounds a
        // request, but INFO right after a warm-up that left the server a backlog (seen at load 40:
        // "INFO got no reply: Connection timed out") may take longer without anything being wrong.
        int timeout = Math.Max(_spec.Client.TimeoutMilliseconds, ControlTimeoutMilliseconds);
        GcObservation gc = GcObservation.Current();
        WorkloadPlan plan = WorkloadPlan.Create(workload);
        var events = LoadTestEventSource.Log;
        Phase($"connecting to {target.Name}");
        RespControl.Command(target, timeout, "PING");
        using ConnectionPool pool = ConnectionPool.Open(target, plan, workload, _spec.Client);
        var runner = new RemoteRunner(pool, plan, workload);
        var phases = new List<PhaseSpan>();
        long phaseStart = Stopwatch.GetTimestamp();
        using (events.Mark(Tracing.Phase.Fill))
        {
            pool.UseTimeout(_spec.Client.FillTimeoutMilliseconds ?? _spec.Client.TimeoutMilliseconds);
            Phase($"filling the server with {workload.Keys:N0} keys");
            runner.Bulk(OperationType.Write, cancellationToken);
            ThrowOnErrors(pool, "filling the server");
            runner.Bulk(OperationType.Read, cancellationToken);
            ThrowOnErrors(pool, "reading every key once");
            pool.UseTimeout(_spec.Client.TimeoutMilliseconds);
        }

        phaseStart = Ended(phases, Tracing.Phase.Fill, phaseStart);

        Phase($"warming up for {workload.WarmupSeconds:0.#} s");
        using (events.Mark(Tracing.Phase.Warmup))
        {
            if (workload.WarmupSeconds > 0 && !cancellationToken.IsCancellationRequested)
            {
                runner.Run(TimeSpan.FromSeconds(workload.WarmupSeconds), cancellationToken);
            }
        }

        Ended(phases, Tracing.Phase.Warmup, phaseStart);

        NoGcRegionOutcome? noGc = NoGcRegion.RequestedByRuntimeConfig() ? NoGcRegion.Start(workload.NoGcBudgetBytes ?? (256L << 20), workload.NoGcBudgetBytes is null) : null;
        ServerInfo? serverBefore = ServerInfo.Read(target, timeout);
        int gen0 = GC.CollectionCount(0), gen1 = GC.CollectionCount(1), gen2 = GC.CollectionCount(2);
        TimeSpan pause = GC.GetTotalPauseDuration();
        long allocated = GC.GetTotalAllocatedBytes(precise: true);

        Phase("measuring");
        LongHistogram? scratch = _spec.Progress ? LatencyHistograms.Create() : null;
        PhaseOutcome measured;
        phaseStart = Stopwatch.GetTimestamp();
        using (events.Mark(Tracing.Phase.Measured))
        {
            measured = runner.Run(
                TimeSpan.FromSeconds(workload.DurationSeconds),
                cancellationToken,
                scratch is null ? null : elapsed => WorkerSession.ReportProgress(_progress, runner.Recorders, runner.Operations, scratch, elapsed));
        }

        Ended(phases, Tracing.Phase.Measured, phaseStart);
        int d0 = GC.CollectionCount(0) - gen0, d1 = GC.CollectionCount(1) - gen1, d2 = GC.CollectionCount(2) - gen2;
        var clientGc = new GcActivity(d0 - d1, d1 - d2, d2, (GC.GetTotalPauseDuration() - pause).TotalMilliseconds, GC.GetTotalAllocatedBytes(precise: true) - allocated);
        if (noGc is not null)
        {
            noGc = NoGcRegion.End(noGc);
        }

        ServerInfo? serverAfter = ServerInfo.Read(target, timeout);
        var queue = LatencyHistograms.Create();
        foreach (LongHistogram histogram in pool.QueueHistograms)
        {
            queue.Add(histogram);
        }

        IReadOnlyList<ThreadRecorder> recorders = runner.Recorders;
        return new WorkerResult
        {
            Mode = _spec.Mode,
            RuntimeConfig = _spec.RuntimeConfig,
            Gc = gc,
            Workload = workload,
            MeasuredSeconds = measured.Elapsed.TotalSeconds,
            Operations = measured.Operations,
            Throughput = measured.Elapsed > TimeSpan.Zero ? measured.Operations / measured.Elapsed.TotalSeconds : 0,
            Backlog = measured.Backlog,
            CorruptReads = 0,
            Interrupted = measured.Interrupted,
            Overall = WorkerSession.Summarize("all", recorders, WorkerSession.AllKinds),
            Kinds = WorkerSession.AllKinds
                .Select(kind => WorkerSession.Summarize(OpKinds.Label(kind), recorders, [kind]))
                .Where(k => k.Corrected.Count > 0)
                .ToList(),
            GcDuringMeasurement = clientGc,
            NoGcRegion = noGc,
            Target = target.Name,
            Client = new ClientReport(_spec.Client, pool.Counts, LatencySummary.From(queue), pool.FirstError),
            Phases = phases,
            ServerGc = serverBefore is not null && serverAfter is not null ? ServerInfo.Between(serverBefore, serverAfter) : null,
        };
    }

    private void ThrowOnErrors(ConnectionPool pool, string what)
    {
        if (pool.Counts.ErrorReplies > 0 || pool.FirstError is not null)
        {
            throw new LoadTestException(ExitCode.TargetFailed, $"{what}: {pool.FirstError}");
        }

        if (pool.Counts.Failures > 0)
        {
            throw new LoadTestException(ExitCode.TargetFailed, $"{what}: {pool.Counts.Failures} requests got no reply after {_spec.Client.Retries} retries");
        }
    }

    private static long Ended(List<PhaseSpan> phases, Tracing.Phase phase, long start)
    {
        long now = Stopwatch.GetTimestamp();
        phases.Add(new PhaseSpan(phase, start, now));
        return now;
    }

    private void Phase(string what) => WorkerSession.Phase(_spec, _progress, what);
}
