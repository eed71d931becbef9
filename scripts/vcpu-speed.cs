#!/usr/bin/env -S dotnet run
#:property Optimize=true
#:property TieredPGO=true
// The vCPUs' speeds (docs/benchmarks.md, "The Get-hit rows' two speeds: the vCPUs"): a bare
// ConcurrentDictionary lookup and copy of 1,024 keys (the Get-hit benchmark's floor), timed in 100 ms
// chunks for N seconds (default 8) in one process; prints min, median and max ns per lookup.
// Run it pinned: taskset -c 0 dotnet run -c Release scripts/vcpu-speed.cs -- 8; then -c 1.
// With `alternate` after N (Linux) the timing thread alone moves between CPU 0 and CPU 1 every
// chunk (sched_setaffinity of this thread, the runtime's threads left free), one line per CPU.
using System.Collections.Concurrent;
using System.Diagnostics;
using System.Runtime.InteropServices;
int seconds = args.Length > 0 ? int.Parse(args[0], System.Globalization.CultureInfo.InvariantCulture) : 8;
bool alternate = args.Length > 1 && args[1] == "alternate";
var chunks = new[] { new List<double>(), new List<double>() };
var rnd = new Random(1);
var keys = new byte[1024][]; var dict = new ConcurrentDictionary<byte[], byte[]>(2, 2048, new Cmp());
for (int i = 0; i < keys.Length; i++) { keys[i] = GC.AllocateArray<byte>(16, pinned: true); rnd.NextBytes(keys[i]); var v = GC.AllocateArray<byte>(128, pinned: true); rnd.NextBytes(v); dict[keys[i]] = v; }
var order = Enumerable.Range(0, 1024).OrderBy(_ => rnd.Next()).ToArray();
var dest = new byte[256];
var lookup = dict.GetAlternateLookup<ReadOnlySpan<byte>>();
int next = 0; long sink = 0; int chunk = 0;
var start = DateTime.UtcNow;
while ((DateTime.UtcNow - start).TotalSeconds < seconds)
{
    int cpu = alternate ? chunk++ & 1 : 0;
    ulong mask = 1UL << cpu;
    if (alternate && Native.sched_setaffinity(0, sizeof(ulong), ref mask) != 0) { Console.Error.WriteLine("sched_setaffinity failed"); return 1; }
    long ops = 0; long t0 = Stopwatch.GetTimestamp();
    while (Stopwatch.GetElapsedTime(t0).TotalMilliseconds < 100)
    {
        for (int k = 0; k < 1000; k++)
        {
            if (lookup.TryGetValue(keys[order[next++ & 1023]], out var v)) { v.CopyTo(dest, 0); sink += dest[0]; }
        }
        ops += 1000;
    }
    double ns = Stopwatch.GetElapsedTime(t0).TotalNanoseconds / ops;
    chunks[cpu].Add(ns);
}
for (int c = 0; c < (alternate ? 2 : 1); c++)
{
    var l = chunks[c]; l.Sort();
    Console.WriteLine(FormattableString.Invariant($"{(alternate ? $"CPU {c}: " : "")}min {l[0]:F2} ns, median {l[l.Count / 2]:F2} ns, max {l[^1]:F2} ns over {l.Count} chunks of 100 ms (sink {sink % 10})"));
}
return 0;
static class Native { [DllImport("libc", SetLastError = true)] public static extern int sched_setaffinity(int pid, nint size, ref ulong mask); }
sealed class Cmp : IEqualityComparer<byte[]>, IAlternateEqualityComparer<ReadOnlySpan<byte>, byte[]>
{
    public bool Equals(byte[]? a, byte[]? b) => a.AsSpan().SequenceEqual(b);
    public int GetHashCode(byte[] k) => GetHashCode((ReadOnlySpan<byte>)k);
    public bool Equals(ReadOnlySpan<byte> a, byte[] b) => a.SequenceEqual(b);
    public int GetHashCode(ReadOnlySpan<byte> k) { var h = new HashCode(); h.AddBytes(k); return h.ToHashCode(); }
    public byte[] Create(ReadOnlySpan<byte> k) => k.ToArray();
}
