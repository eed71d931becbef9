using TailDb.Analyzer.Computers;
using TailDb.Analyzer.Stacks;

namespace TailDb.Analyzer.Tests.Computers;

public sealed class SampleComputerTests
{
    [Theory]
    [InlineData("Contention", "System.Threading.Monitor.Enter_Slowpath(class System.Object)", "Program.Request()")]
    [InlineData("Waiting", "System.Threading.Thread.Sleep(int32)", "Program.Request()")]
    [InlineData("FileIo", "Interop+Sys.PRead(class SafeHandle,unsigned int8*,int32,int64)", "System.IO.RandomAccess.ReadAtOffset()", "TailDb.Storage.Segment.Read()")]
    [InlineData("App", "System.Collections.Generic.Dictionary`2.FindValue(!0)", "TailDb.Caching.Cache.TryGet()")]
    [InlineData("ThreadPool", "System.Threading.LowLevelLifoSemaphore.WaitForSignal(int32)", "System.Threading.PortableThreadPool+WorkerThread.WorkerThreadStart()")]
    [InlineData("Gc", "System.GC.Collect(int32)", "Program.Request()")]
    [InlineData("SafePoint", "System.Threading.Thread.PollGC()", "Program.Request()")]
    [InlineData("Unresolved", "unresolved!0x7f0012345678")]
    public void StacksAreCategorisedFromTheLeafUp(string expected, params string[] stack)
    {
        Assert.Equal(Enum.Parse<SampleCategory>(expected), SampleComputer.Categorise(stack).Category);
    }

    // perf's stacks (PerfFrames' spelling), as a TailDb server's look: the store writes its log through
    // its own P/Invoke, which reads as app code above the kernel's part.
    private const string StoreWrite = "TailDb!TailDb.Storage.SegmentWriter.AppendRunLocked(value class System.ReadOnlySpan`1<unsigned int8>,int32)";
    private const string Sockets = "System.Net.Sockets!System.Net.Sockets.SocketAsyncEngine+SocketEventHandler.HandleSocketEvents(int32)";

    [Theory]
    [InlineData("KernelFile", "kernel!pvm_irq_enable", "kernel!vfs_write", "kernel!__x64_sys_pwrite64", "kernel!do_syscall_64", "libc.so.6!__libc_pwrite", StoreWrite)]
    [InlineData("KernelNetwork", "kernel!tcp_sendmsg_locked", "kernel!__sys_sendto", "kernel!__x64_sys_sendto", "kernel!do_syscall_64", "libc.so.6!__send", Sockets)]
    [InlineData("KernelNetwork", "kernel!skb_copy_datagram_iter", "kernel!tcp_recvmsg", "kernel!sock_read_iter", "kernel!vfs_read", "kernel!__x64_sys_read", "libc.so.6!read", Sockets)]
    [InlineData("KernelFile", "kernel!filemap_read", "kernel!vfs_read", "kernel!__x64_sys_read", "libc.so.6!read", StoreWrite)]
    [InlineData("KernelNetwork", "libc.so.6!__libc_recv", Sockets)] // a tick on the wrapper's own instruction
    [InlineData("KernelFile", "libc.so.6!__libc_pwrite", StoreWrite)]
    [InlineData("PageFault", "kernel!clear_page_erms", "kernel!asm_exc_page_fault", "kernel!copy_from_user", "kernel!__x64_sys_pwrite64", "libc.so.6!__libc_pwrite", StoreWrite)]
    [InlineData("Contention", "kernel!futex_wait", "kernel!__x64_sys_futex", "libc.so.6!syscall", "System.Private.CoreLib!System.Threading.Monitor.Enter_Slowpath(class System.Object)", StoreWrite)]
    [InlineData("App", "libc.so.6!memmove", StoreWrite)]
    [InlineData("KernelNetwork", "kernel!tcp_ack", "kernel!__x64_sys_recvfrom")] // the kernel's part alone
    public void A_sample_inside_a_file_or_socket_system_call_is_that_calls_whoever_made_it(string expected, params string[] stack)
    {
        Assert.Equal(Enum.Parse<SampleCategory>(expected), SampleComputer.Categorise(stack).Category);
    }

    [Fact]
    public void IntervalIsMeasuredFromPerThreadGaps()
    {
        var samples = new List<StackSample>();
        for (var i = 0; i < 100; i++)
        {
            samples.Add(new StackSample(i * 1.0, 1, 0, true));
            samples.Add(new StackSample((i * 1.0) + 0.01, 2, 0, true));
        }

        // A 30 ms hole (a GC: no samples) does not move the median gap.
        samples.RemoveAll(s => s.TimeRelativeMSec is > 40 and < 70);
        var computer = new SampleComputer(new StackSampleSet(samples, [["Program.Main()"]], 0));
        Assert.Equal(1.0, computer.IntervalMSec, 6);
        Assert.Equal(samples.Count, computer.TotalSamples);
    }

    [Fact]
    public void AUserOnlyTickOnTheInstructionAFaultNextToItCameFromIsTheFaults()
    {
        const string touch = "TailDb.LoadTest!TailDb.LoadTest.Injections.Injector.TouchFreshMemory(int32)";
        IReadOnlyList<string>[] stacks =
        [
            ["kernel!clear_page_erms", "kernel!asm_exc_page_fault", touch, "Program.Request()"], // 0: a fault taken from the loop
            [touch, "Program.Request()"],                                                         // 1: the loop, no kernel frame
            ["Program.Compute()", "Program.Request()"],                                           // 2: other code of the thread
        ];
        // Thread 1: fault, loop, fault, loop, then other code beside a fault, then the loop far from any fault.
        int[] ids = [0, 1, 0, 2, 0, 1, 1, 1];
        var samples = ids.Select((id, i) => new StackSample(i * 1.0, 1, id, true)).ToList();
        samples[^1] = samples[^1] with { TimeRelativeMSec = 20 };
        var computer = new SampleComputer(new StackSampleSet(samples, stacks, 0) { IntervalMSec = 1.0, OnCpuOnly = true });

        Assert.True(computer.TryGetThread(1, out var thread));
        var categories = Enumerable.Range(0, ids.Length).Select(i => thread.CategoryOf(i, computer)).ToArray();
        Assert.Equal(
            [SampleCategory.PageFault, SampleCategory.PageFault, SampleCategory.PageFault, SampleCategory.App, SampleCategory.PageFault,
             SampleCategory.PageFault, SampleCategory.App, SampleCategory.App],
            categories);
        // The stack's own category is unchanged: only the ticks beside a fault are the fault's.
        Assert.Equal(SampleCategory.App, computer.Categories[1]);
    }
}

public sealed class ActivityInfoTests
{
    [Fact]
    public void FieldsRoundTripThroughThe40ByteRecord()
    {
        var info = new ActivityInfo("Get", isRequest: true);
        var keyHash = info.Field("keyHash", isBool: false);
        var hit = info.Field("hit", isBool: true);
        var valueBytes = info.Field("valueBytes", isBool: false);
        var record = default(RequestRecord);
        info.Store(ref record, keyHash, 4_000_000_000L); // a CRC32C above int.MaxValue
        info.Store(ref record, hit, 1);
        info.Store(ref record, valueBytes, 1234);
        Assert.True(info.TryGet(record, keyHash, out var k) && k == 4_000_000_000L);
        Assert.True(info.TryGet(record, hit, out var h) && h == 1);
        Assert.True(info.TryGet(record, valueBytes, out var v) && v == 1234);
        // 40: the queue part (arrival to Start) took the record past 32 bytes.
        Assert.Equal(40, System.Runtime.CompilerServices.Unsafe.SizeOf<RequestRecord>());
    }

    [Fact]
    public void AFieldWiderThan32BitsIsMarkedNotTruncated()
    {
        var info = new ActivityInfo("Get", isRequest: true);
        var offset = info.Field("offset", isBool: false);
        var record = default(RequestRecord);
        info.Store(ref record, offset, 1L << 40);
        Assert.True(info.Overflowed(offset));
        Assert.False(info.TryGet(record, offset, out _));
    }

    [Fact]
    public void OnlyThreeIntegerFieldsFitAndTheFourthIsRefused()
    {
        var info = new ActivityInfo("Put", isRequest: true);
        Assert.Equal([0, 1, 2, -1], new[] { "a", "b", "c", "d" }.Select(n => info.Field(n, isBool: false)));
        Assert.Equal(3, info.Field("hit", isBool: true));
    }
}
