using System.Text;

namespace TailDb.LoadTest.Workloads;

/// <summary>
/// Keys, values and every thread's request sequence, generated from the seed before anything is
/// measured, so the request path does no random-number or key formatting work and every GC mode
/// sees the identical requests.
/// </summary>
public sealed class WorkloadPlan
{
    // Ops are replayed round-robin; a power of two keeps the index a mask.
    private const int MaxOpsPerThread = 1 << 20;

    private WorkloadPlan(byte[][] keys, byte[] values, Operation[][] operations)
    {
        Keys = keys;
        Values = values;
        Operations = operations;
    }

    /// <summary>Key i is the 16 ASCII bytes "k" + i zero-padded.</summary>
    public byte[][] Keys { get; }

    /// <summary>Seeded random bytes; a put writes the first value-size (or large-size) of them.</summary>
    public byte[] Values { get; }

    /// <summary>Per thread, a power-of-two-long sequence replayed in order.</summary>
    public Operation[][] Operations { get; }

    public static WorkloadPlan Create(WorkloadOptions options)
    {
        var keys = new byte[options.Keys][];
        for (int i = 0; i < keys.Length; i++)
        {
            keys[i] = Encoding.ASCII.GetBytes("k" + i.ToString("D15", System.Globalization.CultureInfo.InvariantCulture));
        }

        var values = new byte[options.MaxValueBytes];
        new Random(options.Seed).NextBytes(values);

        double expectedPerThread = options.Rate is { } rate
            ? rate / options.Threads * (options.DurationSeconds + options.WarmupSeconds) * 1.1
            : MaxOpsPerThread;
        int length = (int)Math.Min(MaxOpsPerThread, Math.Max(1024, System.Numerics.BitOperations.RoundUpToPowerOf2((uint)Math.Min(expectedPerThread, MaxOpsPerThread))));

        var zipf = options.Distribution == KeyDistribution.Zipf ? new ZipfGenerator(options.Keys, options.ZipfTheta) : null;
        var operations = new Operation[options.Threads][];
        long puts = 0;
        for (int t = 0; t < operations.Length; t++)
        {
            var random = new Random(unchecked((options.Seed * 7919) + t));
            var ops = new Operation[length];
            for (int i = 0; i < ops.Length; i++)
            {
                int key = zipf?.Next(random) ?? random.Next(options.Keys);
                double roll = random.NextDouble();
                OperationType type = roll < options.ReadRatio
                    ? OperationType.Read
                    : random.NextDouble() < options.DeleteFraction ? OperationType.Delete : OperationType.Write;
                bool large = false;
                if (type == OperationType.Write)
                {
                    puts++;
                    large = options.LargeEvery > 0 && puts % options.LargeEvery == 0;
                }

                ops[i] = new Operation(key, type, large);
            }

            operations[t] = ops;
        }

        return new WorkloadPlan(keys, values, operations);
    }
}
