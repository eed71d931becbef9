using System.Globalization;
using TailDb.Analyzer.Stacks;
using TailDb.Analyzer.Tests.TraceGen.Measuring;
using TailDb.Analyzer.Tests.TraceGen.Recording;
using TailDb.Analyzer.Tests.TraceGen.Workloads;

namespace TailDb.Analyzer.Tests.TraceGen;

/// <summary>
/// burn THREADS MS             burn CPU in CpuBurner's known frame, say done, wait for stdin to close
/// storm THREADS SECONDS       the trace-heavy request workload, say done, wait for stdin to close
/// record FILE MODE ARGS...    run this program as a suspended child in MODE and record it to FILE
/// record-killed FILE MS MODE ARGS...   the same, but kill the child after MS (no rundown)
/// measure tracelog-convert|tracelog|nettrace|eventpipe|eventpipe+nettrace FILE
///                             one timing run (wrap it in /usr/bin/time -v for peak memory)
/// stacks tracelog|nettrace FILE   print the most sampled stacks and every stack with an unresolved frame
/// compare FILE                both readers on FILE; exit 1 if any sample differs
/// hot FILE FRAME              top inclusive/exclusive frames of the samples whose stack has FRAME
/// </summary>
public static class Program
{
    public const string DoneLine = "workload done";

    /// <summary>Said by `burn` once every thread burns in the known frame.</summary>
    public const string BurningLine = "burning";

    public static async Task<int> Main(string[] args)
    {
        switch (args)
        {
            case ["burn", var threads, var ms]:
                CpuBurner.Run(Int(threads), TimeSpan.FromMilliseconds(Int(ms)), () =>
                {
                    Console.WriteLine(BurningLine);
                    Console.Out.Flush();
                });
                return WaitForParent();
            case ["storm", var threads, var seconds]:
                RequestStorm.Run(Int(threads), TimeSpan.FromSeconds(Int(seconds)));
                return WaitForParent();
            case ["record", var file, .. var workload]:
                await using (var recording = await ChildRecording.StartAsync(file, workload))
                {
                    var bytes = await recording.CompleteAsync(TimeSpan.FromMinutes(30));
                    Console.WriteLine($"{file}: {bytes / 1e6:0.0} MB");
                }

                return 0;
            case ["stacks", "tracelog", var file]:
                return Measurement.Dump(new TraceLogStackSampleReader(), file, 8);
            case ["stacks", "nettrace", var file]:
                return Measurement.Dump(new NetTraceStackSampleReader(), file, 8);
            case ["record-killed", var file, var afterMs, .. var workload]:
                await using (var recording = await ChildRecording.StartAsync(file, workload))
                {
                    var bytes = await recording.KillAsync(TimeSpan.FromMilliseconds(Int(afterMs)), TimeSpan.FromMinutes(1));
                    Console.WriteLine($"{file}: {bytes / 1e6:0.0} MB, process killed after {afterMs} ms");
                }

                return 0;
            case ["hot", var file, var filter]:
                return Measurement.Hot(file, filter, 30);
            case ["compare", var file]:
                return Measurement.Compare(file);
            case ["measure", var what, var file]:
                return Measurement.Run(what, file);
            default:
                Console.Error.WriteLine("usage: burn THREADS MS | storm THREADS SECONDS | record FILE MODE ARGS... | measure tracelog-convert|tracelog|nettrace|eventpipe|eventpipe+nettrace FILE | stacks tracelog|nettrace FILE | compare FILE");
                return 2;
        }
    }

    private static int Int(string text) => int.Parse(text, CultureInfo.InvariantCulture);

    private static int WaitForParent()
    {
        Console.WriteLine(DoneLine);
        Console.Out.Flush();
        Console.In.ReadToEnd();
        return 0;
    }
}
