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

    public static void Run(int threads, TimeSpan duration)
    {
        var until = DateTime.UtcNow + duration;
        var workers = Enumerable.Range(0, threads)
            .Select(_ => new Thread(() => Burn(until)) { IsBackground = true })
            .ToList();
        workers.ForEach(t => t.Start());
        workers.ForEach(t => t.Join());
    }

    private static void Burn(DateTime until)
    {
        long sink = 0;
        while (DateTime.UtcNow < until)
        {
            sink += BurnInStackReaderKnownFrame(200_000);
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
