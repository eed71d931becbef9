using TailDb.Analyzer.Stacks;

namespace TailDb.Analyzer.Computers;

internal enum SampleCategory : byte
{
    App,
    Gc,
    Jit,
    Contention,
    Waiting,
    FileIo,
    ThreadPool,
    Framework,
    Unresolved,
    Tracing,

    /// <summary>
    /// Parked at a GC poll for a runtime suspension. Whose suspension is a matter of time, not of the
    /// stack: during or just after a GC pause, the GC's; otherwise the sample profiler's own (the
    /// tick that took this very sample stopped the thread there), which a nogc run shows alone.
    /// </summary>
    SafePoint,

    /// <summary>The kernel servicing a page fault (zeroing or reading in a page): seen only by a kernel sampler (perf).</summary>
    PageFault,

    /// <summary>The runtime's own native code (libcoreclr: allocation slow paths, GC work, stubs, type loads), seen by perf.</summary>
    Runtime,

    /// <summary>Other kernel work (system calls, interrupts) with no managed frame to name it, seen by perf.</summary>
    Kernel,

    /// <summary>
    /// On the CPU inside a file system call (pread, pwrite, fsync, open...), seen by perf: the
    /// copies to and from the page cache, block allocation, writeback waits that spin. Whatever
    /// managed code made the call (the store's own P/Invoke reads as app code otherwise).
    /// </summary>
    KernelFile,

    /// <summary>On the CPU inside a socket system call (recv, send, accept...), seen by perf: the network stack's own work.</summary>
    KernelNetwork,
}

/// <summary>
/// The sample profiler's thread samples (read by an <see cref="IStackSampleReader"/>, the only
/// part of the analysis that needs stacks), indexed per thread and categorised once per unique
/// stack. The sampling interval is measured from the trace: it differs across .NET 10 builds.
/// </summary>
internal sealed class SampleComputer
{
    private readonly Dictionary<int, ThreadSamples> _byThread = [];

    public SampleComputer(StackSampleSet set)
    {
        ArgumentNullException.ThrowIfNull(set);
        Set = set;
        Categories = new SampleCategory[set.Stacks.Count];
        LeafFrames = new string[set.Stacks.Count];
        var userFrames = new string?[set.Stacks.Count];
        for (var i = 0; i < set.Stacks.Count; i++)
        {
            (Categories[i], LeafFrames[i]) = Categorise(set.Stacks[i]);
            userFrames[i] = FirstUserFrame(set.Stacks[i]);
        }

        var perThread = new Dictionary<int, (List<double> Times, List<int> Stacks)>();
        foreach (var sample in set.Samples)
        {
            if ((uint)sample.StackId >= (uint)set.Stacks.Count)
            {
                continue;
            }

            if (!perThread.TryGetValue(sample.ThreadId, out var lists))
            {
                lists = ([], []);
                perThread.Add(sample.ThreadId, lists);
            }

            lists.Times.Add(sample.TimeRelativeMSec);
            lists.Stacks.Add(sample.StackId);
            TotalSamples++;
        }

        var deltas = new List<double>();
        var sorted = new List<(int Thread, double[] Times, int[] Stacks)>(perThread.Count);
        foreach (var (thread, lists) in perThread)
        {
            var times = lists.Times.ToArray();
            var stacks = lists.Stacks.ToArray();
            Array.Sort(times, stacks);
            sorted.Add((thread, times, stacks));
            for (var i = 1; i < times.Length && deltas.Count < 1_000_000; i++)
            {
                var delta = times[i] - times[i - 1];
                if (delta > 0)
                {
                    deltas.Add(delta);
                }
            }
        }

        if (double.IsFinite(set.IntervalMSec))
        {
            IntervalMSec = set.IntervalMSec;
        }
        else if (deltas.Count > 0)
        {
            deltas.Sort();
            // The median per-thread gap: a thread sampled on every tick shows the interval itself;
            // missed ticks (GCs, the thread not existing yet) only lengthen a minority of gaps.
            IntervalMSec = deltas[deltas.Count / 2];
        }

        foreach (var (thread, times, stacks) in sorted)
        {
            _byThread.Add(thread, new ThreadSamples(times, stacks, thread, PerSample(times, stacks, userFrames)));
        }
    }

    /// <summary>
    /// Each sample's category: its stack's, except a sample on the instruction a page fault was just
    /// (or is next) taken from on the same thread, which is the fault's. On a paravirtualized guest
    /// the hypervisor resolves part of each fault, and a tick then lands on the faulting user
    /// instruction with no kernel frame above it: the load test's page-touching loop (one store per
    /// 4 KiB page) showed 313 such user-only ticks, 6-10 µs per iteration (two or three 64 MiB firings) of a loop of a few
    /// instructions, interleaved with its kernel fault ticks (docs/sampling.md, "Faults the kernel
    /// did not see"). Only the immediate neighbours of a fault tick, one interval or so apart, count:
    /// a loop that computes between faults keeps the rest of its ticks.
    /// </summary>
    private SampleCategory[] PerSample(double[] times, int[] stacks, string?[] userFrames)
    {
        var categories = new SampleCategory[stacks.Length];
        for (var i = 0; i < stacks.Length; i++)
        {
            categories[i] = Categories[stacks[i]];
        }

        var near = double.IsFinite(IntervalMSec) ? 2 * IntervalMSec : 0;
        for (var i = 0; i < stacks.Length; i++)
        {
            if (Categories[stacks[i]] != SampleCategory.PageFault || userFrames[stacks[i]] is not { } faultedFrom)
            {
                continue;
            }

            foreach (var j in (ReadOnlySpan<int>)[i - 1, i + 1])
            {
                if ((uint)j < (uint)stacks.Length && Math.Abs(times[j] - times[i]) <= near && IsRunning(Categories[stacks[j]])
                    && Categories[stacks[j]] is not (SampleCategory.PageFault or SampleCategory.Kernel)
                    && Set.Stacks[stacks[j]] is { Count: > 0 } stack && stack[0] == faultedFrom)
                {
                    categories[j] = SampleCategory.PageFault;
                }
            }
        }

        return categories;
    }

    /// <summary>The first frame below a stack's kernel frames (where the thread entered the kernel); null when it has none or starts in user code.</summary>
    private static string? FirstUserFrame(IReadOnlyList<string> stack)
    {
        if (stack.Count == 0 || !stack[0].StartsWith(Sources.Perf.PerfFrames.Kernel + "!", StringComparison.Ordinal))
        {
            return null;
        }

        foreach (var raw in stack)
        {
            if (!raw.StartsWith(Sources.Perf.PerfFrames.Kernel + "!", StringComparison.Ordinal))
            {
                return raw;
            }
        }

        return null;
    }

    public StackSampleSet Set { get; }

    public double IntervalMSec { get; } = double.NaN;

    public long TotalSamples { get; }

    public SampleCategory[] Categories { get; }

    public string[] LeafFrames { get; }

    public bool TryGetThread(int threadId, out ThreadSamples samples) => _byThread.TryGetValue(threadId, out samples!);

    public IEnumerable<ThreadSamples> Threads => _byThread.Values;

    public static string CategoryName(SampleCategory category) => category switch
    {
        SampleCategory.App => "app code",
        SampleCategory.Gc => "GC (allocation, GC frames, parked for a GC)",
        SampleCategory.SafePoint => "parked at a safe point for a runtime suspension",
        SampleCategory.Jit => "JIT / type loading",
        SampleCategory.Contention => "lock contention",
        SampleCategory.Waiting => "blocked / sleeping",
        SampleCategory.FileIo => "file I/O",
        SampleCategory.ThreadPool => "thread pool",
        SampleCategory.Framework => "framework code",
        SampleCategory.Tracing => "event tracing (EventSource / EventPipe)",
        SampleCategory.PageFault => "page faults (the kernel faulting in, zeroing or unmapping pages)",
        SampleCategory.Runtime => "the runtime's native code (libcoreclr: allocation, GC work, stubs)",
        SampleCategory.Kernel => "kernel (system calls, interrupts)",
        SampleCategory.KernelFile => "file system calls (on CPU in the kernel)",
        SampleCategory.KernelNetwork => "socket system calls (on CPU in the kernel)",
        _ => "unresolved / native",
    };

    /// <summary>
    /// Whether a thread sampled in this category was running code (or would be, had the OS run it),
    /// rather than stopped: blocked on a wait, a lock or a file, idle in the thread pool, or parked
    /// at a safe point.
    /// </summary>
    public static bool IsRunning(SampleCategory category) =>
        category is not (SampleCategory.Waiting or SampleCategory.Contention or SampleCategory.ThreadPool or SampleCategory.FileIo or SampleCategory.SafePoint);

    internal static (SampleCategory Category, string Leaf) Categorise(IReadOnlyList<string> stack)
    {
        if (stack.Count == 0)
        {
            return (SampleCategory.Unresolved, "[no frames]");
        }

        var leaf = Strip(stack[0]);
        var call = Sources.Perf.PerfFrames.SystemCallOf(stack);
        var kernelOnly = true;
        var managed = false;
        var unnamed = false;
        foreach (var raw in stack)
        {
            // A kernel sampler's native frames (docs/sampling.md): the module decides, leaf first.
            if (Sources.Perf.PerfFrames.IsPageFault(raw))
            {
                return (SampleCategory.PageFault, leaf);
            }

            if (raw.StartsWith(Sources.Perf.PerfFrames.Kernel + "!", StringComparison.Ordinal))
            {
                continue;
            }

            if (kernelOnly && ByCall(call) is { } inCall)
            {
                // The kernel's part of the stack ended inside a file or socket call: that is what the
                // thread was doing, whoever called it (a fault inside the call returned above).
                return (inCall, leaf);
            }

            kernelOnly = false;
            if (Sources.Perf.PerfFrames.IsNative(raw))
            {
                // The runtime's own code decides only above every managed frame: below one, libcoreclr
                // is what started the thread or called into managed code, not what the thread was doing.
                if (!managed && raw.StartsWith("libclrjit.so", StringComparison.Ordinal))
                {
                    return (SampleCategory.Jit, leaf);
                }

                if (!managed && raw.StartsWith("libcoreclr.so", StringComparison.Ordinal))
                {
                    return (SampleCategory.Runtime, leaf);
                }

                continue;
            }

            if (!managed)
            {
                managed = true;
                unnamed = IsUnresolved(Strip(raw));
            }

            var frame = Strip(raw);
            if (Matches(frame, s_safePoint))
            {
                return (SampleCategory.SafePoint, leaf);
            }

            if (Matches(frame, s_gc))
            {
                return (SampleCategory.Gc, leaf);
            }

            if (Matches(frame, s_tracing))
            {
                return (SampleCategory.Tracing, leaf);
            }

            if (Matches(frame, s_jit))
            {
                return (SampleCategory.Jit, leaf);
            }

            if (Matches(frame, s_contention))
            {
                return (SampleCategory.Contention, leaf);
            }

            if (Matches(frame, s_waiting))
            {
                return (SampleCategory.Waiting, leaf);
            }

            if (Matches(frame, s_fileIo))
            {
                return (SampleCategory.FileIo, leaf);
            }

            if (IsApp(frame))
            {
                return (SampleCategory.App, leaf);
            }

            if (Matches(frame, s_threadPool))
            {
                return (SampleCategory.ThreadPool, leaf);
            }
        }

        if (kernelOnly)
        {
            return (ByCall(call) ?? SampleCategory.Kernel, leaf);
        }

        // The code running was JIT code perf could not name (an attached process, W^X on): a system
        // call or interrupt it made is still the kernel's; the rest is code nobody can name.
        if (unnamed)
        {
            return (stack[0].StartsWith(Sources.Perf.PerfFrames.Kernel + "!", StringComparison.Ordinal) ? SampleCategory.Kernel : SampleCategory.Unresolved, leaf);
        }

        return (IsUnresolved(leaf) ? SampleCategory.Unresolved : SampleCategory.Framework, leaf);
    }

    private static SampleCategory? ByCall(Sources.Perf.SystemCallKind call) => call switch
    {
        Sources.Perf.SystemCallKind.File => SampleCategory.KernelFile,
        Sources.Perf.SystemCallKind.Network => SampleCategory.KernelNetwork,
        _ => null,
    };

    /// <summary>"module!Namespace.Type.Method(args)" → "Namespace.Type.Method".</summary>
    internal static string Strip(string frame)
    {
        var paren = frame.IndexOf('(', StringComparison.Ordinal);
        if (paren > 0)
        {
            frame = frame[..paren];
        }

        var bang = frame.IndexOf('!', StringComparison.Ordinal);
        return bang >= 0 && !frame.StartsWith("unresolved", StringComparison.Ordinal) ? frame[(bang + 1)..] : frame;
    }

    internal static bool IsApp(string frame) =>
        !frame.StartsWith("System.", StringComparison.Ordinal) && !frame.StartsWith("Microsoft.", StringComparison.Ordinal)
        && !frame.StartsWith("Interop", StringComparison.Ordinal) && !frame.StartsWith("Internal.", StringComparison.Ordinal)
        && !frame.StartsWith("ILStubClass", StringComparison.Ordinal) && !frame.StartsWith("DomainBoundILStubClass", StringComparison.Ordinal)
        && !frame.StartsWith('[') && !frame.StartsWith('<') && !IsUnresolved(frame);

    private static bool IsUnresolved(string frame) =>
        frame.StartsWith("unresolved", StringComparison.OrdinalIgnoreCase) || frame.StartsWith("0x", StringComparison.Ordinal) || frame.Length == 0;

    private static bool Matches(string frame, string[] prefixes)
    {
        foreach (var prefix in prefixes)
        {
            if (frame.StartsWith(prefix, StringComparison.Ordinal))
            {
                return true;
            }
        }

        return false;
    }

    // Thread.PollGC is where a thread parks while the runtime is suspended (a GC, or the sampler's tick).
    private static readonly string[] s_gc = ["System.GC.", "WKS::", "SVR::", "System.Runtime.InteropServices.GCHandle"];
    private static readonly string[] s_safePoint = ["System.Threading.Thread.<PollGC>", "System.Threading.Thread.PollGC"];
    private static readonly string[] s_tracing = ["System.Diagnostics.Tracing.", "System.Diagnostics.Activity"];
    private static readonly string[] s_jit = ["System.Runtime.CompilerServices.RuntimeHelpers.PrepareMethod", "System.Runtime.CompilerServices.RuntimeHelpers.RunClassConstructor", "System.RuntimeType.CreateInstance", "ThePreStub", "JIT_"];
    private static readonly string[] s_contention = ["System.Threading.Monitor.Enter", "System.Threading.Monitor.ReliableEnter", "System.Threading.Monitor.TryEnter", "System.Threading.Lock.Enter", "System.Threading.Lock.TryEnter", "System.Threading.SpinLock.", "System.Threading.ReaderWriterLockSlim.", "System.Threading.Monitor.Wait"];
    // TailDb's load test paces its open-loop schedule in PreciseWait (clock_nanosleep, then a short
    // spin): a load thread found there while its request is already due was asleep when it should
    // have run (the OS woke it late), which is waiting, not app work.
    private static readonly string[] s_waiting = ["TailDb.LoadTest.Workloads.PreciseWait.", "System.Threading.Thread.Sleep", "System.Threading.WaitHandle.Wait", "System.Threading.ManualResetEventSlim.Wait", "System.Threading.SemaphoreSlim.Wait", "System.Threading.Tasks.Task.Wait", "System.Threading.Thread.Join", "System.Threading.Tasks.Task.InternalWait", "System.Threading.Tasks.Task.SpinThenBlockingWait"];
    private static readonly string[] s_fileIo = ["System.IO.", "Microsoft.Win32.SafeHandles.SafeFileHandle", "Interop+Sys.Read", "Interop+Sys.PRead", "Interop+Sys.Write", "Interop+Sys.PWrite", "Interop+Sys.FSync", "Interop+Sys.Open", "Interop+Kernel32.ReadFile", "Interop+Kernel32.WriteFile", "Interop+Kernel32.FlushFileBuffers"];
    private static readonly string[] s_threadPool = ["System.Threading.PortableThreadPool", "System.Threading.ThreadPoolWorkQueue", "System.Threading.LowLevelLifoSemaphore", "System.Threading.ThreadPool", "System.Threading.TimerQueue"];
}

/// <summary>One thread's samples in time order.</summary>
/// <param name="Categories">Each sample's category (<see cref="SampleComputer"/>: its stack's, or a fault's on a faulting instruction); null: its stack's.</param>
internal sealed record ThreadSamples(double[] Times, int[] StackIds, int ThreadId = 0, SampleCategory[]? Categories = null)
{
    /// <summary>Sample <paramref name="i"/>'s category: the one place a sample's category is read.</summary>
    public SampleCategory CategoryOf(int i, SampleComputer samples) => Categories is { } own ? own[i] : samples.Categories[StackIds[i]];

    public (int First, int End) Range(double fromMSec, double toMSec)
    {
        var first = LowerBound(Times, fromMSec);
        var end = LowerBound(Times, toMSec);
        return (first, Math.Max(first, end));
    }

    private static int LowerBound(double[] values, double value)
    {
        int lo = 0, hi = values.Length;
        while (lo < hi)
        {
            var mid = (lo + hi) >>> 1;
            if (values[mid] < value)
            {
                lo = mid + 1;
            }
            else
            {
                hi = mid;
            }
        }

        return lo;
    }
}
