using System.Buffers;
using System.Diagnostics;
using System.Diagnostics.Tracing;
using System.Reflection;
using System.Runtime.CompilerServices;
using System.Text;
using TailDb;
using TailDb.Analyzer.Tests.Workload;
using TailDb.Diagnostics;

// Ground-truth workload for the analyzer tests. Request i has a value of 64 + i bytes (so a
// report row names its request through valueBytes). At the indices given on the command line it
// forces a GC, sleeps or blocks on a contended lock inside the request's window; everything else
// is quick, so the forced requests are exactly the slow ones.
//   --store: real TailDbStore Gets (cache off: each is a miss with a nested FileRead); the forced
//            work runs inside the store's Get, in the IBufferWriter the value is copied into.
//   default: TailDbEventSource Get events around a short spin (and --file-read: a slow nested
//            FileRead); --custom: a user EventSource's Checkout activity instead.
var options = WorkloadOptions.Parse(args);
var gcGeneration = options.GcGeneration;
var holdMilliseconds = options.HoldMilliseconds;

// Live objects make a forced gen2 GC take tens of milliseconds: a pause no scheduler hiccup matches.
var heap = new object[options.HeapObjects];
for (var i = 0; i < heap.Length; i++)
{
    heap[i] = new byte[32];
}

// Promote the heap to gen2 now, outside any request: a gen0 GC later then stays cheap.
GC.Collect();
GC.WaitForPendingFinalizers();
GC.Collect();

var gate = new object();
using var lockHeld = new ManualResetEventSlim();
var scratch = Path.Combine(Path.GetTempPath(), $"taildb-workload-{Environment.ProcessId}");
Directory.CreateDirectory(scratch);
var file = Path.Combine(scratch, "read.bin");
File.WriteAllBytes(file, new byte[4096]);
var readBuffer = new byte[4096];
var keys = new byte[options.Requests][];
for (var i = 0; i < keys.Length; i++)
{
    keys[i] = Encoding.UTF8.GetBytes($"key-{i:D6}");
}

var warmUpKey = "warm-up"u8.ToArray();
using var store = options.Store ? TailDbStore.Open(new TailDbOptions { Directory = Path.Combine(scratch, "db"), CacheCapacityBytes = 0, ExpectedKeyCount = options.Requests + 1 }) : null;
var writer = new ForcingWriter(Force);
if (store is not null)
{
    var value = new byte[64 + options.Requests];
    for (var i = 0; i < keys.Length; i++)
    {
        store.Put(keys[i], value.AsSpan(0, ValueBytes(i)));
    }

    store.Put(warmUpKey, [1]);
}

// The event methods are compiled now: the warm-up below must not emit (it would add requests).
foreach (var type in new[] { typeof(TailDbEventSource), typeof(OrdersEventSource), typeof(ForcingWriter) })
{
    foreach (var method in type.GetMethods(BindingFlags.Instance | BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.DeclaredOnly))
    {
        if (!method.IsAbstract && !method.ContainsGenericParameters)
        {
            RuntimeHelpers.PrepareMethod(method.MethodHandle);
        }
    }
}

// Everything the first emitting request would compile otherwise.
_ = ValueBytes(0) + (options.Misses.Contains(0) ? 1 : 0) + (int)options.Forced(0);

// Warm-up through every forced path, so no request pays for JIT: the ground truth is about the
// forced causes only. Store Gets always emit: those show up as requests with valueBytes 1.
// No GC in the warm-up: even a gen0 collection over this heap can take tens of milliseconds,
// which would put a warm-up request into the slow set.
foreach (var warmUp in Enum.GetValues<Forcing>())
{
    if (warmUp != Forcing.Gc)
    {
        Request(-1, warmUp);
    }
}

if (options.StartOnStdin)
{
    // Whoever attaches to this process (watch --pid, --name) says when it has: the requests all fall in its session.
    Console.WriteLine("ready");
    Console.In.ReadLine();
}

var requestsStarted = Stopwatch.StartNew();
for (var i = 0; i < options.Requests; i++)
{
    Request(i, options.Forced(i));
    Spin(options.GapMicroseconds);
}

Console.WriteLine($"done {options.Requests} requests in {requestsStarted.ElapsedMilliseconds} ms (heap {heap.Length})");
if (options.WaitForStdin)
{
    // The recorder stops the session (rundown names the methods) before closing our stdin.
    Console.In.ReadLine();
}

store?.Dispose();
Directory.Delete(scratch, recursive: true);

// Without this a Release build collects the heap after it is filled, and forced GCs become cheap.
GC.KeepAlive(heap);
return 0;

int ValueBytes(int index) => 64 + index;

void Request(int index, Forcing forced)
{
    var emit = index >= 0;
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

    if (store is not null)
    {
        writer.Arm(forced, emit);
        store.TryGet(emit ? keys[index] : warmUpKey, writer);
        return;
    }

    var valueBytes = emit ? ValueBytes(index) : 1;
    if (emit)
    {
        if (options.Custom)
        {
            OrdersEventSource.Log.CheckoutStart(index, valueBytes);
        }
        else
        {
            TailDbEventSource.Log.GetStart(8, (uint)(index * 2654435761L));
        }
    }

    Spin(options.WorkMicroseconds);
    Force(forced, emit);
    if (emit)
    {
        if (options.Custom)
        {
            OrdersEventSource.Log.CheckoutStop(valueBytes * 3);
        }
        else
        {
            TailDbEventSource.Log.GetStop(!options.Misses.Contains(index), true, valueBytes);
        }
    }
}

void Force(Forcing forced, bool emit)
{
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
        case Forcing.Throw:
            for (var i = 0; i < (emit ? 20 : 1); i++)
            {
                try
                {
                    throw new InvalidOperationException("forced by the workload");
                }
                catch (InvalidOperationException)
                {
                    // Thrown to be seen: each one is an ExceptionThrown event on this thread.
                }
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
    internal enum Forcing { None, Gc, Sleep, Lock, FileRead, Throw }

    /// <summary>The buffer a store Get copies its value into; runs the forced work inside the Get's window.</summary>
    internal sealed class ForcingWriter(Action<Forcing, bool> force) : IBufferWriter<byte>
    {
        private readonly byte[] _buffer = new byte[1 << 16];
        private Forcing _armed;
        private bool _emit;

        public void Arm(Forcing forced, bool emit)
        {
            _armed = forced;
            _emit = emit;
        }

        public void Advance(int count)
        {
        }

        public Memory<byte> GetMemory(int sizeHint = 0)
        {
            Fire();
            return _buffer;
        }

        public Span<byte> GetSpan(int sizeHint = 0)
        {
            Fire();
            return _buffer;
        }

        private void Fire()
        {
            var forced = _armed;
            _armed = Forcing.None;
            force(forced, _emit);
        }
    }

    internal sealed record WorkloadOptions(
        int Requests, HashSet<int> Gc, HashSet<int> Sleep, HashSet<int> Lock, HashSet<int> FileRead, HashSet<int> Throw, HashSet<int> Misses,
        int HoldMilliseconds, int WorkMicroseconds, int GapMicroseconds, int HeapObjects, int GcGeneration, bool Custom, bool Store, bool WaitForStdin,
        bool StartOnStdin)
    {
        public Forcing Forced(int index) =>
            Gc.Contains(index) ? Forcing.Gc :
            Sleep.Contains(index) ? Forcing.Sleep :
            Lock.Contains(index) ? Forcing.Lock :
            FileRead.Contains(index) ? Forcing.FileRead :
            Throw.Contains(index) ? Forcing.Throw : Forcing.None;

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
                int.Parse(Value("--requests", "300")), Indices("--gc"), Indices("--sleep"), Indices("--lock"), Indices("--file-read"), Indices("--throw"), Indices("--miss"),
                int.Parse(Value("--hold-ms", "60")), int.Parse(Value("--work-us", "50")), int.Parse(Value("--gap-us", "100")),
                int.Parse(Value("--heap-objects", "1500000")), int.Parse(Value("--gc-gen", "2")),
                args.Contains("--custom"), args.Contains("--store"), args.Contains("--wait-stdin"), args.Contains("--start-on-stdin"));
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
