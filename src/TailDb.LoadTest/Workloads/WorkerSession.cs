using System.Globalization;
using HdrHistogram;
using TailDb.LoadTest.NoGc;
using TailDb.LoadTest.Diagnostics;
using TailDb.LoadTest.Harness;
using TailDb.LoadTest.Injections;
using TailDb.LoadTest.Measurement;
using TailDb.LoadTest.Reporting;

namespace TailDb.LoadTest.Workloads;

/// <summary>
/// The worker process's whole life under one GC mode: open and fill the store, warm up, (no-GC
/// region), measure, and describe what happened. Runs in the child, never in the harness.
/// </summary>
public sealed class WorkerSession
{
    internal static readonly OpKind[] AllKinds = Enum.GetValues<OpKind>();

    private readonly WorkerSpec _spec;
    private readonly TextWriter _progress;

    public WorkerSession(WorkerSpec spec, TextWriter progress)
    {
        _spec = spec;
        _progress = progress;
    }

    public WorkerResult Run(CancellationToken cancellationToken)
    {
        if (_spec.Target is { Networked: true })
        {
            return new Target.RemoteSession(_spec, _progress).Run(cancellationToken);
        }

        WorkloadOptions workload = _spec.Workload;
        GcObservation gc = GcObservation.Current();
        WorkloadPlan plan = WorkloadPlan.Create(workload);

        var events = LoadTestEventSource.Log;
        TailDbStore store;
        using (events.Mark(Tracing.Phase.Fill))
        {
            Phase($"filling the store with {workload.Keys:N0} keys");
            Populate(plan, workload, cancellationToken);
            store = TailDbStore.Open(StoreOptions(workload, workload.Durability));
            Phase("filling the cache");
            FillCache(store, plan, cancellationToken);
        }

        using var opened = store;
        using var compactions = workload.CompactEverySeconds > 0 ? new PeriodicCompaction(store, TimeSpan.FromSeconds(workload.CompactEverySeconds)) : null;
        using Injector? injector = _spec.Injections.Count > 0 ? new Injector(_spec.Injections) : null;
        var runner = new WorkloadRunner(store, plan, workload, injector);

        Phase($"warming up for {workload.WarmupSeconds:0.#} s");
        long allocatedBeforeWarmup = GC.GetTotalAllocatedBytes(precise: true);
        PhaseOutcome warmup;
        using (events.Mark(Tracing.Phase.Warmup))
        {
            injector?.Rehearse();
            warmup = workload.WarmupSeconds > 0 && !cancellationToken.IsCancellationRequested
                ? runner.Run(TimeSpan.FromSeconds(workload.WarmupSeconds), cancellationToken)
                : new PhaseOutcome(TimeSpan.Zero, 0, 0, false);
            injector?.Stop();
            injector?.Clear();
        }

        long warmupAllocated = GC.GetTotalAllocatedBytes(precise: true) - allocatedBeforeWarmup;

        NoGcRegionOutcome? noGc = null;
        if (NoGcRegion.RequestedByRuntimeConfig())
        {
            bool fromWorkload = workload.NoGcBudgetBytes is null;
            long budget = workload.NoGcBudgetBytes ?? NoGcRegion.EstimateBudget(workload, warmupAllocated, warmup.Operations, warmup.Elapsed);
            noGc = NoGcRegion.Start(budget, fromWorkload);
        }

        int gen0 = GC.CollectionCount(0), gen1 = GC.CollectionCount(1), gen2 = GC.CollectionCount(2);
        TimeSpan pause = GC.GetTotalPauseDuration();
        long allocated = GC.GetTotalAllocatedBytes(precise: true);

        Phase("measuring");
        var scratch = _spec.Progress ? LatencyHistograms.Create() : null;
        RequestLog? log = injector is null ? null : new RequestLog(workload.Threads, ExpectedRequestsPerThread(workload));
        using GcPauseListener? pauses = injector is null ? null : new GcPauseListener();
        int gcsBefore = GC.CollectionCount(0);
        PhaseOutcome measured;
        using (events.Mark(Tracing.Phase.Measured))
        {
            injector?.Start();
            measured = runner.Run(
                TimeSpan.FromSeconds(workload.DurationSeconds),
                cancellationToken,
                scratch is null ? null : elapsed => ReportProgress(_progress, runner.Recorders, runner.Operations, scratch, elapsed),
                log);
            injector?.Stop();
        }

        compactions?.Dispose(); // the summary covers whole compactions only, and none runs past the measurement
        int d0 = GC.CollectionCount(0) - gen0, d1 = GC.CollectionCount(1) - gen1, d2 = GC.CollectionCount(2) - gen2;
        var activity = new GcActivity(
            d0 - d1,
            d1 - d2,
            d2,
            (GC.GetTotalPauseDuration() - pause).TotalMilliseconds,
            GC.GetTotalAllocatedBytes(precise: true) - allocated);
        if (noGc is not null)
        {
            noGc = NoGcRegion.End(noGc);
        }

        if (injector is not null && _spec.TruthPath is { } truthPath)
        {
            // Every pause of the measured phase, or (the listener's events lagging past the wait) none: the
            // truth then falls back to each firing's pause total.
            bool complete = pauses!.WaitForPauses(GC.CollectionCount(0) - gcsBefore, TimeSpan.FromSeconds(5));
            TruthFile.Build(injector, log!, complete ? pauses.Pauses() : null).Write(truthPath);
        }

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
            CorruptReads = runner.Corrupt,
            Interrupted = measured.Interrupted,
            Overall = Summarize("all", runner.Recorders, AllKinds),
            Kinds = AllKinds
                .Select(kind => Summarize(OpKinds.Label(kind), runner.Recorders, [kind]))
                .Where(k => k.Corrected.Count > 0)
                .ToList(),
            GcDuringMeasurement = activity,
            NoGcRegion = noGc,
            Compactions = compactions?.Summary(),
        };
    }

    // Open loop: the schedule's count and a margin; closed loop: a generous guess (the log says what it dropped).
    private static int ExpectedRequestsPerThread(WorkloadOptions workload) =>
        (int)Math.Min(1 << 24, (workload.Rate is { } rate ? rate / workload.Threads : 200_000.0) * workload.DurationSeconds * 1.2) + 1024;

    internal static void Phase(WorkerSpec spec, TextWriter progress, string what)
    {
        if (spec.Progress)
        {
            progress.WriteLine(WorkerProtocol.PhasePrefix + what);
            progress.Flush();
        }
    }

    private void Phase(string what)
    {
        if (_spec.Progress)
        {
            _progress.WriteLine(WorkerProtocol.PhasePrefix + what);
            _progress.Flush();
        }
    }

    // Both fills stop early on a stop (Ctrl-C, or the harness closing stdin): the harness waits
    // only a short grace for the result, and a big --keys under load fills for longer than that.
    // The phases then measure nothing and the row says "(cut)".
    private void Populate(WorkloadPlan plan, WorkloadOptions workload, CancellationToken cancellationToken)
    {
        // Filling the store is set-up, not load: without fsync even when the run uses it
        // (one fsync per key would take minutes), then reopened with the run's durability.
        using TailDbStore store = TailDbStore.Open(StoreOptions(workload, Durability.None));
        ReadOnlySpan<byte> value = plan.Values.AsSpan(0, workload.ValueSize);
        for (int i = 0; i < plan.Keys.Length && !Stopping(i, cancellationToken); i++)
        {
            store.Put(plan.Keys[i], value);
        }
    }

    // Reopening starts with an empty cache, and a short warm-up touches only a few keys: read every
    // key once so --cache-fraction, not the warm-up's length, sets the miss rate.
    private static void FillCache(TailDbStore store, WorkloadPlan plan, CancellationToken cancellationToken)
    {
        var buffer = new System.Buffers.ArrayBufferWriter<byte>();
        for (int i = 0; i < plan.Keys.Length && !Stopping(i, cancellationToken); i++)
        {
            buffer.ResetWrittenCount();
            store.TryGet(plan.Keys[i], buffer);
        }
    }

    private static bool Stopping(int i, CancellationToken cancellationToken) => (i & 1023) == 0 && cancellationToken.IsCancellationRequested;

    private TailDbOptions StoreOptions(WorkloadOptions workload, Durability durability) => new()
    {
        Directory = _spec.StoreDirectory,
        CacheCapacityBytes = workload.CacheCapacityBytes,
        ExpectedKeyCount = workload.Keys,
        MaxValueBytes = Math.Max(1 << 20, workload.MaxValueBytes),
        Durability = durability,
        Upkeep = workload.Upkeep == UpkeepPlacement.OnRequest ? UpkeepMode.OnRequest : UpkeepMode.Background,
        CompactionBytesPerSecond = workload.CompactionBytesPerSecond,
        CompactionPriority = workload.CompactionPriority,
    };

    internal static KindLatency Summarize(string label, IReadOnlyList<ThreadRecorder> recorders, OpKind[] kinds)
    {
        var corrected = LatencyHistograms.Create();
        var uncorrected = LatencyHistograms.Create();
        foreach (var recorder in recorders)
        {
            foreach (var kind in kinds)
            {
                corrected.Add(recorder.Corrected(kind));
                uncorrected.Add(recorder.Uncorrected(kind));
            }
        }

        return new KindLatency(label, LatencySummary.From(corrected), LatencySummary.From(uncorrected));
    }

    // Reads the other threads' histograms without locking: a progress line may be off by a few
    // requests, the final figures are taken after the threads have finished.
    internal static void ReportProgress(TextWriter progress, IReadOnlyList<ThreadRecorder> recorders, long operations, LongHistogram scratch, TimeSpan elapsed)
    {
        scratch.Reset();
        foreach (var recorder in recorders)
        {
            foreach (var kind in AllKinds)
            {
                scratch.Add(recorder.Corrected(kind));
            }
        }

        progress.WriteLine(string.Create(CultureInfo.InvariantCulture,
            $"{WorkerProtocol.ProgressPrefix}{elapsed.TotalSeconds:F1} {operations} {(scratch.TotalCount == 0 ? 0 : scratch.GetValueAtPercentile(99))}"));
        progress.Flush();
    }
}
