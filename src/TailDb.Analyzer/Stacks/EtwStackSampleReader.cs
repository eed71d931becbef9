using Microsoft.Diagnostics.Tracing;
using Microsoft.Diagnostics.Tracing.Parsers;
using Microsoft.Diagnostics.Tracing.Parsers.Clr;
using Microsoft.Diagnostics.Tracing.Parsers.Kernel;
using TailDb.Analyzer.Sources.Etw;

namespace TailDb.Analyzer.Stacks;

/// <summary>
/// The kernel's CPU samples of one process of an ETW trace (`PerfInfo/Sample`, every processor at
/// the profile interval, 1 ms by default) with their stacks when stack walking was on, as the same
/// <see cref="StackSampleSet"/> the EventPipe sample profiler feeds. A sample's stack comes from its
/// `StackWalk/Stack` event, or from the cached-stack references (`StackKeyKernel`/`StackKeyUser`)
/// resolved by the key definitions that follow them (`KeyDelete`/`KeyRundown`). Frames resolve
/// through the CLR's method events (MethodLoadVerbose in the session, MethodDC*Verbose rundown) and
/// then the kernel's image loads ("ntdll.dll!?": the module is known, the function would need its
/// symbols); an address in neither is "unresolved!0x...". Context switches and ready-thread events
/// are kept per thread in <see cref="Schedule"/> for the scheduler model.
/// </summary>
internal sealed class EtwStackSampleReader(int? processId) : IStackSampleReader
{
    /// <summary>The last read's context switches and readying events, per thread (empty when the trace has none).</summary>
    public EtwThreadSchedule Schedule { get; private set; } = EtwThreadSchedule.Empty;

    public StackSampleSet Read(string nettracePath, CancellationToken cancellationToken = default)
    {
        var path = nettracePath;
        var methods = new MethodRangeTable();
        var images = new List<(ulong Start, ulong End, string Name)>();
        var threadProcess = new Dictionary<int, int>();
        var samples = new List<(double Time, int Thread, int Process, ulong Ip)>();
        var sampleAt = new Dictionary<(int Thread, double Time), int>();
        var stacks = new Dictionary<int, List<ulong>>();
        var pendingKeys = new Dictionary<ulong, List<int>>();
        var schedule = new EtwThreadSchedule();
        using (var source = new EtwEventSource(path) { ProcessFilter = processId })
        {
            var kernel = source.Kernel;
            var clr = source.Clr;
            var rundown = new ClrRundownTraceEventParser(source);
            Action<ThreadTraceData> onThread = data => threadProcess[data.ThreadID] = data.ProcessID;
            kernel.ThreadStartGroup += onThread;
            kernel.ThreadEndGroup += onThread;
            kernel.ImageGroup += data =>
            {
                if (processId is null || data.ProcessID == processId || data.ImageBase >= 0xFFFF_0000_0000_0000UL || data.ProcessID is 0 or 4)
                {
                    images.Add((data.ImageBase, data.ImageBase + (ulong)data.ImageSize, WindowsFileName(data.FileName)));
                }
            };
            kernel.PerfInfoSample += data =>
            {
                var index = samples.Count;
                samples.Add((data.TimeStampRelativeMSec, data.ThreadID, data.ProcessID, data.InstructionPointer));
                sampleAt[(data.ThreadID, data.TimeStampRelativeMSec)] = index;
            };
            kernel.StackWalkStack += data =>
            {
                if (sampleAt.TryGetValue((data.ThreadID, data.EventTimeStampRelativeMSec), out var index))
                {
                    var frames = Frames(stacks, index);
                    for (var i = 0; i < data.FrameCount; i++)
                    {
                        frames.Add(data.InstructionPointer(i));
                    }
                }
            };
            Action<StackWalkRefTraceData> onReference = data =>
            {
                if (sampleAt.TryGetValue((data.ThreadID, data.EventTimeStampRelativeMSec), out var index))
                {
                    if (!pendingKeys.TryGetValue(data.StackKey, out var waiting))
                    {
                        pendingKeys[data.StackKey] = waiting = [];
                    }

                    waiting.Add(index);
                }
            };
            kernel.StackWalkStackKeyKernel += onReference;
            kernel.StackWalkStackKeyUser += onReference;
            Action<StackWalkDefTraceData> onDefinition = data =>
            {
                // A key is defined after the references that use it (when the cache evicts it, or at rundown), and may be reused after.
                if (pendingKeys.Remove(data.StackKey, out var waiting))
                {
                    foreach (var index in waiting)
                    {
                        var frames = Frames(stacks, index);
                        for (var i = 0; i < data.FrameCount; i++)
                        {
                            frames.Add(data.InstructionPointer(i));
                        }
                    }
                }
            };
            kernel.StackWalkKeyDelete += onDefinition;
            kernel.StackWalkKeyRundown += onDefinition;
            kernel.ThreadCSwitch += data => schedule.AddSwitch(data.TimeStampRelativeMSec, data.ProcessorNumber, data.OldThreadID, data.NewThreadID, (int)data.OldThreadState, (int)data.OldThreadWaitReason);
            kernel.DispatcherReadyThread += data => schedule.AddReady(data.TimeStampRelativeMSec, data.AwakenedThreadID, data.ThreadID);
            Action<MethodLoadUnloadVerboseTraceData> sessionLoad = data =>
                methods.AddSessionLoad(data.MethodStartAddress, (uint)data.MethodSize, FrameNames.Method(data.MethodNamespace, data.MethodName, data.MethodSignature));
            Action<MethodLoadUnloadVerboseTraceData> rundownLoad = data =>
                methods.AddRundown(data.MethodStartAddress, (uint)data.MethodSize, FrameNames.Method(data.MethodNamespace, data.MethodName, data.MethodSignature));
            clr.MethodLoadVerbose += sessionLoad;
            clr.MethodDCStartVerboseV2 += rundownLoad;
            clr.MethodDCStopVerboseV2 += rundownLoad;
            rundown.MethodDCStartVerbose += rundownLoad;
            rundown.MethodDCStopVerbose += rundownLoad;
            source.AllEvents += _ =>
            {
                if (cancellationToken.IsCancellationRequested)
                {
                    source.StopProcessing();
                }
            };
            source.Process();
        }

        cancellationToken.ThrowIfCancellationRequested();
        Schedule = schedule;
        images.Sort((a, b) => a.Start.CompareTo(b.Start));
        var interner = new StackInterner();
        var result = new List<StackSample>();
        var unresolved = new HashSet<ulong>();
        for (var i = 0; i < samples.Count; i++)
        {
            var (time, thread, process, ip) = samples[i];
            if (thread == 0)
            {
                continue; // the idle thread
            }

            if (process < 0)
            {
                process = threadProcess.GetValueOrDefault(thread, -1);
            }

            if (processId is { } only && process != only)
            {
                continue;
            }

            var addresses = stacks.TryGetValue(i, out var walked) && walked.Count > 0 ? walked : [ip];
            var frames = new string[addresses.Count];
            var managed = false;
            for (var f = 0; f < addresses.Count; f++)
            {
                frames[f] = interner.Name(Resolve(addresses[f], methods, images, unresolved, ref managed));
            }

            result.Add(new StackSample(time, thread, interner.Intern(frames), managed));
        }

        return new StackSampleSet(result, interner.Stacks, unresolved.Count);
    }

    /// <summary>The file name of a Windows path on any OS (Path.GetFileName splits on '/' only off Windows).</summary>
    private static string WindowsFileName(string path) => path[(path.LastIndexOfAny(['\\', '/']) + 1)..];

    private static List<ulong> Frames(Dictionary<int, List<ulong>> stacks, int index)
    {
        if (!stacks.TryGetValue(index, out var frames))
        {
            stacks[index] = frames = [];
        }

        return frames;
    }

    private static string Resolve(ulong address, MethodRangeTable methods, List<(ulong Start, ulong End, string Name)> images, HashSet<ulong> unresolved, ref bool managed)
    {
        if (methods.TryResolve(address, out var name))
        {
            managed = true;
            return name;
        }

        int lo = 0, hi = images.Count - 1, found = -1;
        while (lo <= hi)
        {
            var mid = (lo + hi) >>> 1;
            if (images[mid].Start <= address)
            {
                found = mid;
                lo = mid + 1;
            }
            else
            {
                hi = mid - 1;
            }
        }

        if (found >= 0 && address < images[found].End)
        {
            return images[found].Name + "!?";
        }

        unresolved.Add(address);
        return FrameNames.Unresolved(address);
    }
}

/// <summary>
/// Context switches (`Thread/CSwitch`) and readying (`ReadyThread`) of an ETW trace, per thread, in
/// time order: what a scheduler model (on-CPU, runnable-waiting, blocked intervals) is built from.
/// </summary>
internal sealed class EtwThreadSchedule
{
    private readonly Dictionary<int, List<EtwSwitch>> _switches = [];
    private readonly Dictionary<int, List<EtwReady>> _readied = [];

    public static EtwThreadSchedule Empty { get; } = new();

    /// <summary>Per thread, the switches where it went on (IsOn) or off a processor.</summary>
    public IReadOnlyDictionary<int, List<EtwSwitch>> Switches => _switches;

    /// <summary>Per thread, the moments another thread made it runnable.</summary>
    public IReadOnlyDictionary<int, List<EtwReady>> Readied => _readied;

    internal void AddSwitch(double time, int processor, int oldThread, int newThread, int oldState, int waitReason)
    {
        List(_switches, oldThread).Add(new EtwSwitch(time, processor, IsOn: false, oldState, waitReason));
        List(_switches, newThread).Add(new EtwSwitch(time, processor, IsOn: true, 0, 0));
    }

    internal void AddReady(double time, int readied, int by) => List(_readied, readied).Add(new EtwReady(time, by));

    private static List<T> List<T>(Dictionary<int, List<T>> byThread, int thread)
    {
        if (!byThread.TryGetValue(thread, out var list))
        {
            byThread[thread] = list = [];
        }

        return list;
    }
}

/// <param name="OldState">When going off: the kernel's thread state (Waiting 5, Ready 1, ...); WaitReason: why it waits.</param>
internal readonly record struct EtwSwitch(double TimeRelativeMSec, int Processor, bool IsOn, int OldState, int WaitReason);

internal readonly record struct EtwReady(double TimeRelativeMSec, int ByThread);
