namespace TailDb.Benchmarks.Configuration;

/// <summary>
/// Names a raw baseline outside the benchmark's own category whose machine cost this benchmark
/// pays too: a store Get miss pays a <c>pread</c>, a Put a <c>pwrite</c>, whatever its category's
/// baseline measures. The CI comparison divides the benchmark's slowdown by the largest drift among
/// its own raw baseline and these (a machine whose system calls got 2.4x dearer, with its
/// category's in-memory baseline steady, is still the machine). Exported by <see cref="BaselineMapExporter"/>.
/// </summary>
[AttributeUsage(AttributeTargets.Method, AllowMultiple = true)]
public sealed class DriftsWithAttribute : Attribute
{
    public DriftsWithAttribute(Type benchmarks, string method)
    {
        ArgumentNullException.ThrowIfNull(benchmarks);
        Method = benchmarks.FullName + "." + method;
    }

    /// <summary>The raw baseline's method, as BenchmarkDotNet's FullName spells it without parameters.</summary>
    public string Method { get; }
}
