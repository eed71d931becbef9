using TailDb.Analyzer.Attribution;
using TailDb.Analyzer.Computers;
using TailDb.Analyzer.Stacks;

namespace TailDb.Analyzer.Tests.Attribution;

public sealed class TopFramesTests
{
    [Fact]
    public void One_kernel_leaf_under_a_file_call_and_under_a_socket_call_is_two_rows_each_with_its_own_category()
    {
        IReadOnlyList<string>[] stacks =
        [
            ["kernel!pvm_irq_enable", "kernel!__x64_sys_pwrite64", "libc.so.6!__libc_pwrite", "TailDb!TailDb.Storage.SegmentWriter.AppendRunLocked()"],
            ["kernel!pvm_irq_enable", "kernel!__x64_sys_recvfrom", "libc.so.6!__libc_recv", "System.Net.Sockets!System.Net.Sockets.Socket.Receive()"],
            ["kernel!pvm_irq_enable", "kernel!__x64_sys_recvfrom", "libc.so.6!__libc_recv", "TailDb.Server!TailDb.Server.Hosting.RespConnection.ServeAsync()"],
        ];
        var samples = new List<StackSample> { new(0, 1, 0, true), new(1, 1, 1, true), new(2, 1, 1, true), new(3, 1, 2, true) };
        var computer = new SampleComputer(new StackSampleSet(samples, stacks, 0) { IntervalMSec = 1.0, OnCpuOnly = true });

        var rows = TopFrames.Rank(new Dictionary<int, int> { [0] = 1, [1] = 2, [2] = 1 }, computer, 4.0, 10);

        Assert.Equal(
            [("pvm_irq_enable", SampleComputer.CategoryName(SampleCategory.KernelNetwork), 3.0), ("pvm_irq_enable", SampleComputer.CategoryName(SampleCategory.KernelFile), 1.0)],
            rows.Select(r => (r.Frame, r.Category, r.Ms)));
    }
}
