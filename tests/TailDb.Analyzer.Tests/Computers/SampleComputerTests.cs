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
    [InlineData("Unresolved", "unresolved!0x7f0012345678")]
    public void StacksAreCategorisedFromTheLeafUp(string expected, params string[] stack)
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
}
