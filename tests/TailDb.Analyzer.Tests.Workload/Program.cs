using System.Diagnostics;
using System.Diagnostics.Tracing;
using System.Reflection;
using System.Runtime.CompilerServices;
using TailDb.Diagnostics;
using TailDb.Analyzer.Tests.Workload;

// Ground-truth workload for the analyzer tests: makes requests that emit TailDb's Start/Stop
// events (or a user EventSource's) and, at the request indices given on the command line, forces
// a GC, sleeps, blocks on a contended lock or does a nested FileRead inside the request's window.
// Everything else is a short spin, so the forced requests are exactly the slow ones.
var options = WorkloadOptions.Parse(args);

// Live objects make a forced gen2 GC take tens of milliseconds: a pause no scheduler hiccup matches.
var heap = new object[options.HeapObjects];
for (var i = 0; i < heap.Length; i++)
{
    heap[i] = new byte[32];
}

var gate = new object();
using var lockHeld = new ManualResetEventSlim();
var file = Path.GetTempFileName();
File.WriteAllBytes(file, new byte[4096]);
var readBuffer = new byte[4096];

// The event methods are compiled now: the warm-up below must not emit (it would add requests).
foreach (var type in new[] { typeof(TailDbEventSource), typeof(OrdersEventSource) })
{
    foreach (var method in type.GetMethods(BindingFlags.Instance | BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.DeclaredOnly))
    {
        if (!method.IsAbstract && !method.ContainsGenericParameters)
        {
            RuntimeHelpers.PrepareMethod(method.MethodHandle);
        }
    }
}

var gcGeneration = options.GcGeneration;
var holdMilliseconds = options.HoldMilliseconds;

// Warm-up with events off, through every forced path, so no request pays for JIT: the ground
// truth is about the forced causes only.
foreach (var warmUp in Enum.GetValues<Forcing>())
{
    Request(-1, emit: false, warmUp);
}

var requestsStarted = Stopwatch.StartNew();
for (var i = 0; i < options.Requests; i++)
{
    Request(i, emit: true);
    Spin(options.GapMicroseconds);
}

Console.WriteLine($"done {options.Requests} requests in {requestsStarted.ElapsedMilliseconds} ms (heap {heap.Length})");
if (options.WaitForStdin)
{
    // The recorder stops the session (rundown names the methods) before closing our stdin.
    Console.In.ReadLine();
}

File.Delete(file);
return 0;

void Request(int index, bool emit, Forcing warmUp = Forcing.None)
{
    var forced = index >= 0 ? options.Forced(index) : warmUp;
    var key = (long)(uint)(index * 2654435761L);
    var valueBytes = 100 + (Math.Max(index, 0) % 10 * 100);
    var hit = !options.Misses.Contains(index);
    if (forced == Forcing.Lock)
    {
        lockHeld.Reset();
        var holder = new Thread(() =>
        {
            lock (gate)
            {
                lockHeld.Set();
                Thread.Sleep(emit ? holdMilliseconds : 1);
            }
        });
        holder.Start();
        lockHeld.Wait();
    }

    if (emit)
    {
        if (options.Custom)
        {
            OrdersEventSource.Log.CheckoutStart(index, valueBytes);
        }
        else
        {
            TailDbEventSource.Log.GetStart(8, key);
        }
    }

    Spin(options.WorkMicroseconds);
    switch (forced)
    {
        case Forcing.Gc:
            GC.Collect(emit ? gcGeneration : 0, GCCollectionMode.Forced, blocking: true);
            break;
        case Forcing.Sleep:
            Thread.Sleep(emit ? holdMilliseconds : 1);
            break;
        case Forcing.Lock:
            lock (gate)
            {
                Spin(1);
            }

            break;
        case Forcing.FileRead:
            if (emit)
            {
                TailDbEventSource.Log.FileReadStart(1, 0, readBuffer.Length);
            }

            using (var stream = File.OpenRead(file))
            {
                stream.ReadExactly(readBuffer);
            }

            Thread.Sleep(emit ? holdMilliseconds : 1);
            if (emit)
            {
                TailDbEventSource.Log.FileReadStop(readBuffer.Length);
            }

            break;
    }

    if (emit)
    {
        if (options.Custom)
        {
            OrdersEventSource.Log.CheckoutStop(valueBytes * 3);
        }
        else
        {
            TailDbEventSource.Log.GetStop(hit, true, valueBytes);
        }
    }
}

static void Spin(int microseconds)
{
    var until = Stopwatch.GetTimestamp() + (microseconds * Stopwatch.Frequency / 1_000_000);
    while (Stopwatch.GetTimestamp() < until)
    {
        Thread.SpinWait(10);
    }
}

namespace TailDb.Analyzer.Tests.Workload
{
    internal enum Forcing { None, Gc, Sleep, Lock, FileRead }

    internal sealed record WorkloadOptions(
        int Requests, HashSet<int> Gc, HashSet<int> Sleep, HashSet<int> Lock, HashSet<int> FileRead, HashSet<int> Misses,
        int HoldMilliseconds, int WorkMicroseconds, int GapMicroseconds, int HeapObjects, int GcGeneration, bool Custom, bool WaitForStdin)
    {
        public Forcing Forced(int index) =>
            Gc.Contains(index) ? Forcing.Gc :
            Sleep.Contains(index) ? Forcing.Sleep :
            Lock.Contains(index) ? Forcing.Lock :
            FileRead.Contains(index) ? Forcing.FileRead : Forcing.None;

        public static WorkloadOptions Parse(string[] args)
        {
            string Value(string name, string fallback)
            {
                var at = Array.IndexOf(args, name);
                return at >= 0 && at + 1 < args.Length ? args[at + 1] : fallback;
            }

            HashSet<int> Indices(string name) =>
                [.. Value(name, "").Split(',', StringSplitOptions.RemoveEmptyEntries).Select(int.Parse)];

            return new WorkloadOptions(
                int.Parse(Value("--requests", "300")), Indices("--gc"), Indices("--sleep"), Indices("--lock"), Indices("--file-read"), Indices("--miss"),
                int.Parse(Value("--hold-ms", "60")), int.Parse(Value("--work-us", "50")), int.Parse(Value("--gap-us", "100")),
                int.Parse(Value("--heap-objects", "1500000")), int.Parse(Value("--gc-gen", "2")),
                args.Contains("--custom"), args.Contains("--wait-stdin"));
        }
    }

    /// <summary>A user's own EventSource whose activity is not called Get/Put/Delete.</summary>
    [EventSource(Name = "TailDb-Tests-Orders")]
    internal sealed class OrdersEventSource : EventSource
    {
        public static readonly OrdersEventSource Log = new();

        [Event(1)]
        public void CheckoutStart(int orderId, int items) => WriteEvent(1, orderId, items);

        [Event(2)]
        public void CheckoutStop(int totalCents) => WriteEvent(2, totalCents);
    }
}
