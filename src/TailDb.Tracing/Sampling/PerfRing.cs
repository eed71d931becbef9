using System.Globalization;

namespace TailDb.Tracing.Sampling;

/// <summary>
/// perf as a flight recorder (<c>watch --sampler perf</c>): <c>--overwrite</c> keeps each CPU's
/// events in a ring of <see cref="BytesPerCpu"/> in kernel memory, the oldest overwritten, and
/// nothing reaches the disk until a dump is asked for (SIGUSR2 with <c>--switch-output=signal</c>).
/// The ring is sized in bytes, so the seconds it holds depend on how busy each CPU is: every sample
/// carries its call chain, and a busy machine switches threads tens of thousands of times a second.
/// </summary>
/// <param name="BytesPerCpu">A power of two of pages: perf's <c>-m</c> rounds up to one anyway, and this says what it really holds.</param>
public sealed record PerfRing(long BytesPerCpu)
{
    /// <summary>The default's allowance per second of the EventPipe window, per CPU (docs/sampling.md, "perf as a flight recorder").</summary>
    public const long BytesPerWindowSecond = 2L << 20;

    public const long MinBytesPerCpu = 4L << 20;

    public const long MaxBytesPerCpu = 256L << 20;

    /// <summary>
    /// The default: enough to cover the EventPipe ring's <paramref name="window"/> at
    /// <see cref="BytesPerWindowSecond"/> per CPU, so a capture's perf file spans what its .nettrace
    /// does; within <see cref="MinBytesPerCpu"/>..<see cref="MaxBytesPerCpu"/>.
    /// </summary>
    public static PerfRing ForWindow(TimeSpan window) =>
        Of((long)Math.Clamp(window.TotalSeconds * BytesPerWindowSecond, MinBytesPerCpu, MaxBytesPerCpu));

    /// <summary>At least <paramref name="bytesPerCpu"/>, rounded up to a power of two of pages as perf maps it.</summary>
    public static PerfRing Of(long bytesPerCpu)
    {
        long page = Environment.SystemPageSize;
        long pages = Math.Max(1, (bytesPerCpu + page - 1) / page);
        return new PerfRing((long)System.Numerics.BitOperations.RoundUpToPowerOf2((ulong)pages) * page);
    }

    public long Pages => BytesPerCpu / Environment.SystemPageSize;

    /// <summary>The kernel memory perf locks for the rings: one per CPU, for as long as it records.</summary>
    public long TotalBytes => BytesPerCpu * OnlineCpus();

    public string Describe() => string.Create(CultureInfo.InvariantCulture,
        $"perf ring {BytesPerCpu / 1048576.0:0.#} MiB per CPU x {OnlineCpus()} CPUs = {TotalBytes / 1048576.0:0.#} MiB of kernel memory; each capture dumps it (at most that much on disk until its perf file is written)");

    /// <summary>--all-cpus maps a ring on every online CPU, whatever this process's affinity or quota (which Environment.ProcessorCount follows).</summary>
    internal static int OnlineCpus()
    {
        try
        {
            int count = 0;
            foreach (string range in File.ReadAllText("/sys/devices/system/cpu/online").Trim().Split(',', StringSplitOptions.RemoveEmptyEntries))
            {
                string[] ends = range.Split('-');
                count += ends.Length == 2 ? int.Parse(ends[1], CultureInfo.InvariantCulture) - int.Parse(ends[0], CultureInfo.InvariantCulture) + 1 : 1;
            }

            return Math.Max(1, count);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException or FormatException)
        {
            return Environment.ProcessorCount;
        }
    }
}
