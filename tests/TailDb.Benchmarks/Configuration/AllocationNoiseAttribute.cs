namespace TailDb.Benchmarks.Configuration;

/// <summary>
/// Declares that a benchmark's bytes allocated per operation vary between identical runs by up to
/// <see cref="Bytes"/>, and why. The CI comparison fails on any allocation growth past this. Put it
/// only where the variation comes from timing, never to hide a real allocation. Exported by
/// <see cref="BaselineMapExporter"/>.
/// </summary>
[AttributeUsage(AttributeTargets.Method)]
public sealed class AllocationNoiseAttribute : Attribute
{
    public AllocationNoiseAttribute(int bytes, string reason)
    {
        Bytes = bytes;
        Reason = reason;
    }

    public int Bytes { get; }

    public string Reason { get; }
}
