using System.IO.Compression;
using System.Text;
using TailDb.Analyzer.Computers;
using TailDb.Analyzer.Scheduling;
using TailDb.Analyzer.Stacks;
using TailDb.Tracing.Sampling;

namespace TailDb.Analyzer.Tests.Stacks;

/// <summary>
/// perf's text as `perf script` writes it for the recorder's fields (lines shaped as a real
/// recording's), read into the one model: the traced process's on-CPU samples with their frames,
/// its threads' scheduler states and who held the CPU or woke them, on the trace's clock.
/// </summary>
public sealed class PerfSourceTests : IDisposable
{
    // Process 100 is traced; its thread 101 (load-0) is preempted by another process's thread (hog, 201 of 200),
    // runs, sleeps until a timer interrupt wakes it, and runs again. Thread 301 belongs to a third process.
    private const string Script = """
# taildb-perf 1 pid=100 rate-hz=1000 clock=monotonic
             hog   200/201   [001]    9.990000000: sched:sched_switch: prev_comm=hog prev_pid=201 prev_prio=120 prev_state=R ==> next_comm=other next_pid=301 next_prio=120
          load-0   100/101   [000]   10.000000000: sched:sched_switch: prev_comm=load-0 prev_pid=101 prev_prio=120 prev_state=R ==> next_comm=hog next_pid=201 next_prio=120
             hog   200/201   [000]   10.020000000: sched:sched_switch: prev_comm=hog prev_pid=201 prev_prio=120 prev_state=S ==> next_comm=load-0 next_pid=101 next_prio=120
load-0   100/101   [000]    10.021000000:          cpu-clock/freq=999/: 
	    7f0000001000 void [TailDb.LoadTest] TailDb.LoadTest.Workloads.RequestExecutor::Execute(int32)[OptimizedTier1] (/tmp/perf-100.map)
	    7f0000002000 void [TailDb.LoadTest] TailDb.LoadTest.Workloads.LoadThreads::RunOpenLoop(int32)[OptimizedTier1] (/tmp/perf-100.map)

other   300/301   [001]    10.021500000:          cpu-clock/freq=999/: 
	    7f0000003000 void [Other] Other.Program::Main()[OptimizedTier1] (/tmp/perf-300.map)

load-0   100/101   [000]    10.021800000:          major-faults/period=1/: 
	    7f0000001000 void [TailDb.LoadTest] TailDb.LoadTest.Workloads.RequestExecutor::Execute(int32)[OptimizedTier1] (/tmp/perf-100.map)

          load-0   100/101   [000]   10.022000000: sched:sched_switch: prev_comm=load-0 prev_pid=101 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120
         swapper     0/0     [000]   10.030000000: sched:sched_wakeup: comm=load-0 pid=101 prio=120 target_cpu=000
         swapper     0/0     [000]   10.031000000: sched:sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=load-0 next_pid=101 next_prio=120
load-0   100/101   [000]    10.032000000:          cpu-clock/freq=999/: 
	ffffffff8225fe6b clear_page_erms ([kernel.kallsyms])
	ffffffff82261975 asm_exc_page_fault ([kernel.kallsyms])
	    7f0000001000 void [TailDb.LoadTest] TailDb.LoadTest.Workloads.RequestExecutor::Execute(int32)[OptimizedTier1] (/tmp/perf-100.map)

""";

    private readonly string _path = Path.Combine(Path.GetTempPath(), $"taildb-perf-{Guid.NewGuid():N}.perf.gz");

    public PerfSourceTests() => Write(_path, Script);

    /// <summary>Writes <paramref name="script"/> as the recorder writes perf's text: gzipped, "\n" line ends.</summary>
    private static void Write(string path, string script)
    {
        using var file = File.Create(path);
        using var gzip = new GZipStream(file, CompressionLevel.Fastest);
        gzip.Write(Encoding.ASCII.GetBytes(script.ReplaceLineEndings("\n")));
    }

    public void Dispose() => File.Delete(_path);

    private PerfSource Read() => PerfSource.Read(_path, PerfFile.ReadHeader(_path)!, originMSec: 10_000);

    [Fact]
    public void The_header_names_the_traced_process_and_the_rate()
    {
        var header = PerfFile.ReadHeader(_path);
        Assert.Equal(new PerfFileHeader(100, 1000), header);
        Assert.Equal(1.0, Read().Samples.IntervalMSec, 9);
    }

    [Fact]
    public void A_file_perf_script_cut_short_is_covered_until_its_last_event_and_a_whole_one_to_the_end()
    {
        var cut = Path.ChangeExtension(_path, null) + "-cut.perf.gz";
        Write(cut, Script.Replace("clock=monotonic", "clock=monotonic cut=damaged-record", StringComparison.Ordinal));
        try
        {
            var header = PerfFile.ReadHeader(cut)!;
            Assert.True(header.Cut);
            Assert.Equal(32.0, PerfSource.Read(cut, header, originMSec: 10_000).CoveredUntilMSec, 6);
            Assert.Equal(double.PositiveInfinity, Read().CoveredUntilMSec);
        }
        finally
        {
            File.Delete(cut);
        }
    }

    [Fact]
    public void Only_the_traced_process_samples_are_kept_on_the_trace_clock_with_managed_frames_named()
    {
        var samples = Read().Samples;
        Assert.True(samples.OnCpuOnly);
        Assert.Equal([21.0, 32.0], samples.Samples.Select(s => Math.Round(s.TimeRelativeMSec, 6)));
        Assert.All(samples.Samples, s => Assert.Equal(101, s.ThreadId));
        Assert.Equal("TailDb.LoadTest!TailDb.LoadTest.Workloads.RequestExecutor.Execute(int32)", samples.Stacks[samples.Samples[0].StackId][0]);
    }

    [Fact]
    public void A_sample_in_the_kernels_page_fault_path_is_a_page_fault()
    {
        var samples = Read().Samples;
        var (category, _) = SampleComputer.Categorise(samples.Stacks[samples.Samples[1].StackId]);
        Assert.Equal(SampleCategory.PageFault, category);
        Assert.Equal(SampleCategory.App, SampleComputer.Categorise(samples.Stacks[samples.Samples[0].StackId]).Category);
    }

    [Fact]
    public void A_preempted_thread_is_runnable_until_switched_in_and_names_the_process_that_held_the_cpu()
    {
        var scheduler = Read().Scheduler;
        var spans = scheduler.SpansOf(101).ToArray();
        Assert.Equal(RunState.Runnable, spans[0].State);
        Assert.Equal((0.0, 20.0), (Math.Round(spans[0].StartMSec, 6), Math.Round(spans[0].StopMSec, 6)));
        Assert.Equal(201, spans[0].Holder);
        Assert.Equal("hog (pid 200)", scheduler.DescribeHolder(spans[0].Holder));
        Assert.Equal(RunState.Running, spans[1].State);
    }

    [Fact]
    public void A_sleeping_thread_sleeps_until_woken_then_waits_for_a_cpu_until_switched_in()
    {
        var scheduler = Read().Scheduler;
        var spans = scheduler.SpansOf(101).ToArray();
        Assert.Equal(RunState.Sleeping, spans[2].State);
        Assert.Equal((22.0, 30.0), (Math.Round(spans[2].StartMSec, 6), Math.Round(spans[2].StopMSec, 6)));
        Assert.Equal("an interrupt or the kernel", scheduler.DescribeHolder(spans[2].Holder));
        Assert.Equal(RunState.Runnable, spans[3].State);
        Assert.Equal((30.0, 31.0), (Math.Round(spans[3].StartMSec, 6), Math.Round(spans[3].StopMSec, 6)));
        Assert.Equal(RunState.Running, spans[4].State);
        var byState = new double[Enum.GetValues<RunState>().Length];
        scheduler.Overlap(101, 0, 31, byState);
        Assert.Equal([2.0, 21.0, 8.0, 0.0, 0.0], byState.Select(v => Math.Round(v, 6)));
    }

    [Fact]
    public void Every_cpu_is_covered_from_the_latest_of_the_cpus_first_events()
    {
        // CPU 1's first event is at 9.990 s, CPU 0's at 10.000 s (the trace's zero): before that, CPU 0's events may be missing.
        Assert.Equal(0.0, Math.Round(Read().CoveredFromMSec, 6));
    }

    [Fact]
    public void Another_process_threads_get_no_spans_and_major_faults_are_the_traced_threads()
    {
        var scheduler = Read().Scheduler;
        Assert.Equal([101], scheduler.Threads);
        Assert.Equal([21.8], scheduler.MajorFaults[101].Select(t => Math.Round(t, 6)));
    }

    // Two samples as perf recorded them in a server attached to after it started (2026-11-27): its
    // JIT code runs from W^X's /memfd:doublemapper, which perf cannot name, and there is no perf map.
    // The bottom frames are the runtime starting the thread; nothing in libcoreclr is doing the work.
    private const string AttachedScript = """
# taildb-perf 1 pid=15982 rate-hz=999 clock=monotonic
.NET TP Worker 15982/15998 [001] 10.001000000:    cpu-clock/freq=999/: 
	           f64c7 __libc_pwrite (/usr/lib/x86_64-linux-gnu/libc.so.6)
	          6988d3 [unknown] (/memfd:doublemapper (deleted))
	          694d87 [unknown] (/memfd:doublemapper (deleted))
	          246460 [unknown] (/usr/share/dotnet/shared/Microsoft.NETCore.App/10.0.12/System.Private.CoreLib.dll)
	          5fa3cc [unknown] (/usr/share/dotnet/shared/Microsoft.NETCore.App/10.0.12/libcoreclr.so)
	          63bf51 [unknown] (/usr/share/dotnet/shared/Microsoft.NETCore.App/10.0.12/libcoreclr.so)
	           891f5 start_thread (/usr/lib/x86_64-linux-gnu/libc.so.6)

.NET TP Worker 15982/15998 [001] 10.002000000:    cpu-clock/freq=999/: 
	ffffffff816d67b8 vfs_write ([kernel.kallsyms])
	ffffffff816d7043 __x64_sys_pwrite64 ([kernel.kallsyms])
	ffffffff8225a6c1 do_syscall_64 ([kernel.kallsyms])
	ffffffff81000130 entry_SYSCALL_64_after_hwframe ([kernel.kallsyms])
	           f64c7 __libc_pwrite (/usr/lib/x86_64-linux-gnu/libc.so.6)
	          6988d3 [unknown] (/memfd:doublemapper (deleted))
	          694d87 [unknown] (/memfd:doublemapper (deleted))
	          246460 [unknown] (/usr/share/dotnet/shared/Microsoft.NETCore.App/10.0.12/System.Private.CoreLib.dll)
	          5fa3cc [unknown] (/usr/share/dotnet/shared/Microsoft.NETCore.App/10.0.12/libcoreclr.so)
	          63bf51 [unknown] (/usr/share/dotnet/shared/Microsoft.NETCore.App/10.0.12/libcoreclr.so)
	           891f5 start_thread (/usr/lib/x86_64-linux-gnu/libc.so.6)

""";

    [Fact]
    public void Unnamed_jit_code_over_the_runtimes_thread_start_is_not_the_runtimes_work()
    {
        var path = Path.Combine(Path.GetTempPath(), $"taildb-perf-{Guid.NewGuid():N}.perf.gz");
        try
        {
            Write(path, AttachedScript);
            var samples = PerfSource.Read(path, PerfFile.ReadHeader(path)!, originMSec: 10_000).Samples;
            var categories = samples.Samples.Select(s => SampleComputer.Categorise(samples.Stacks[s.StackId]).Category).ToArray();

            // A tick on libc's pwrite and one inside the kernel's, both under JIT code perf could not
            // name: file system calls either way, and neither is libcoreclr's.
            Assert.Equal([SampleCategory.KernelFile, SampleCategory.KernelFile], categories);
        }
        finally
        {
            File.Delete(path);
        }
    }
}
