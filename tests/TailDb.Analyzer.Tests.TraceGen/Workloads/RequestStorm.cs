using System.Runtime.CompilerServices;
using TailDb.Diagnostics;

namespace TailDb.Analyzer.Tests.TraceGen.Workloads;

/// <summary>
/// A trace-heavy workload for the analyzer's performance measurement: several threads issue
/// TailDb Get/Put activities (nested FileRead/Fsync) through the real event source, allocate
/// enough to keep gen0 GCs frequent, and burn CPU in named frames for the sampler. Drives the
/// event source directly: the point is a large, realistic trace, not the store's speed.
/// </summary>
public static class RequestStorm
{
    public static void Run(int threads, TimeSpan duration)
    {
        var until = DateTime.UtcNow + duration;
        var workers = Enumerable.Range(0, threads)
            .Select(i => new Thread(() => Worker(i, until)) { IsBackground = true, Name = $"storm-{i}" })
            .ToList();
        workers.ForEach(t => t.Start());
        workers.ForEach(t => t.Join());
    }

    private static void Worker(int seed, DateTime until)
    {
        var random = new Random(seed);
        var log = TailDbEventSource.Log;
        long sink = 0;
        var i = 0;
        while ((++i & 255) != 0 || DateTime.UtcNow < until)
        {
            long key = random.NextInt64();
            if (random.Next(10) < 8)
            {
                log.GetStart(16, key);
                var miss = random.Next(4) == 0;
                if (miss)
                {
                    log.FileReadStart(1, key & 0xFFFFFF, 256);
                    sink += ReadRecord(random, 256);
                    log.FileReadStop(256);
                }
                else
                {
                    sink += CopyCachedValue(random, 128);
                }

                log.GetStop(!miss, true, 128);
            }
            else
            {
                var size = random.Next(64, 4096);
                log.PutStart(16, key, size);
                sink += AppendRecord(random, size);
                if ((i & 63) == 0)
                {
                    log.FsyncStart(8);
                    sink += AppendRecord(random, 8192);
                    log.FsyncStop(8);
                }

                log.PutStop(size);
            }
        }

        GC.KeepAlive(sink);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static long CopyCachedValue(Random random, int size) => Touch(new byte[size], random);

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static long ReadRecord(Random random, int size) => Touch(new byte[size], random) + Spin(2_000);

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static long AppendRecord(Random random, int size) => Touch(new byte[size], random) + Spin(500);

    private static long Touch(byte[] buffer, Random random)
    {
        random.NextBytes(buffer.AsSpan(0, Math.Min(buffer.Length, 64)));
        return buffer[0];
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static long Spin(int iterations)
    {
        long x = 1;
        for (var i = 0; i < iterations; i++)
        {
            x = (x * 6364136223846793005) + 1442695040888963407;
        }

        return x;
    }
}
