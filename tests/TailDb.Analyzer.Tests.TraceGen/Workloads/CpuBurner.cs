using System.Runtime.CompilerServices;

namespace TailDb.Analyzer.Tests.TraceGen.Workloads;

/// <summary>
/// Burns CPU in one method with a name nothing else in a trace has, so a test can look for it
/// among the sampled frames.
/// </summary>
public static class CpuBurner
{
    /// <summary>The frame the sample readers must name, as TraceEvent spells it.</summary>
    public const string KnownFrame = "TailDb.Analyzer.Tests.TraceGen.Workloads.CpuBurner.BurnInStackReaderKnownFrame(int64)";

    /// <summary>Calls of the known frame each thread makes before <c>onBurning</c> is called (~10 ms of CPU each).</summary>
    private const int CallsBeforeBurning = 20;

    /// <param name="onBurning">Called once every thread is in the known frame's loop: a recorder that
    /// kills the process mid-burn waits for this, not for a fixed time (start-up under load took longer).</param>
    public static void Run(int threads, TimeSpan duration, Action? onBurning = null)
    {
        var until = DateTime.UtcNow + duration;
        using var burning = new CountdownEvent(threads);
        var workers = Enumerable.Range(0, threads)
            .Select(_ => new Thread(() => Burn(until, burning)) { IsBackground = true })
            .ToList();
        workers.ForEach(t => t.Start());
        burning.Wait();
        onBurning?.Invoke();
        workers.ForEach(t => t.Join());
    }

    private static void Burn(DateTime until, CountdownEvent burning)
    {
        long sink = 0;
        for (int calls = 1; DateTime.UtcNow < until || calls <= CallsBeforeBurning; calls++)
        {
            sink += BurnInStackReaderKnownFrame(200_000);
            if (calls == CallsBeforeBurning)
            {
                burning.Signal();
            }
        }

        GC.KeepAlive(sink);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static long BurnInStackReaderKnownFrame(long iterations)
    {
        ulong x = 0x9E3779B97F4A7C15;
        for (long i = 0; i < iterations; i++)
        {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
        }

        return (long)x;
    }
}
