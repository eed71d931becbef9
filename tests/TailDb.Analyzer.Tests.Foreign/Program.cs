using System.Diagnostics;
using System.Diagnostics.Tracing;
using System.Globalization;
using System.Net;
using TailDb.Analyzer.Tests.Foreign;

// Apps we did not write, for the analyzer's foreign-provider tests. Every request whose id is
// `every - 1` modulo `every` forces a blocking gen2 GC over a heap of live objects (tens of ms):
// those are the known slow requests, and a gen2 GC pause is their known cause.
//   http REQUESTS EVERY             Kestrel on 127.0.0.1 answering GET /work/{id} (the GC runs in the handler),
//                                   driven by an HttpClient in this process, one request at a time:
//                                   Microsoft.AspNetCore.Hosting and System.Net.Http Request activities.
//   custom LAYOUT REQUESTS EVERY    an EventSource of its own (ForeignAppEvents.ProviderName) with the arrival
//                                   convention: one thread serves requests due every GapMicroseconds (open loop),
//                                   so the requests behind a GC wait for it in their queue.
var mode = args.ElementAtOrDefault(0);

// Live objects make a forced gen2 GC take tens of milliseconds (with 300,000 some took under 10 ms:
// not slow enough to be a known answer; with 1,500,000, 14 ms on a quiet machine under the Web SDK's
// server GC, so the request due 4 ms after it waited just about the tests' 10 ms threshold).
var heap = new object[3_000_000];
for (var i = 0; i < heap.Length; i++)
{
    heap[i] = new byte[32];
}

// Promoted now, outside any request: a forced gen2 GC later must walk all of it.
GC.Collect();
var code = mode switch
{
    "http" when args.Length == 3 => await Http.RunAsync(Int(args[1]), Int(args[2])),
    "custom" when args.Length == 4 => Custom.Run(args[1], Int(args[2]), Int(args[3])),
    _ => Usage(),
};
GC.KeepAlive(heap);
return code;

static int Int(string text) => int.Parse(text, CultureInfo.InvariantCulture);

static int Usage()
{
    Console.Error.WriteLine($"usage: http REQUESTS EVERY | custom {string.Join("|", Custom.Layouts)} REQUESTS EVERY");
    return 2;
}

namespace TailDb.Analyzer.Tests.Foreign
{
    internal static class Injection
    {
        public static bool Slowed(int id, int every) => id % every == every - 1;

        public static void Force() => GC.Collect(2, GCCollectionMode.Forced, blocking: true);
    }

    internal static class Http
    {
        public static async Task<int> RunAsync(int requests, int every)
        {
            var builder = WebApplication.CreateSlimBuilder();
            builder.Logging.ClearProviders();
            builder.WebHost.ConfigureKestrel(k => k.Listen(IPAddress.Loopback, 0));
            await using var app = builder.Build();
            app.MapGet("/work/{id:int}", (int id) =>
            {
                if (Injection.Slowed(id, every))
                {
                    Injection.Force();
                }

                return Results.Text($"ok {id}");
            });
            await app.StartAsync();
            using var client = new HttpClient { BaseAddress = new Uri(app.Urls.First()) };
            for (var id = 0; id < requests; id++)
            {
                var body = await client.GetStringAsync(new Uri($"/work/{id}", UriKind.Relative));
                if (body != $"ok {id}")
                {
                    Console.Error.WriteLine($"request {id} answered '{body}'");
                    return 1;
                }
            }

            await app.StopAsync();
            Console.WriteLine($"done {requests} requests");
            return 0;
        }
    }

    /// <summary>One thread serves the requests on an open-loop schedule; each Start carries the time it was due.</summary>
    internal static class Custom
    {
        /// <summary>Between two GCs (every 50th request) 200 ms: the queue a GC of 40-150 ms leaves behind drains before the next.</summary>
        public const int GapMicroseconds = 4000;

        public static readonly string[] Layouts = ["int-long", "string-long", "mixed"];

        public static int Run(string layout, int requests, int every)
        {
            IRequestEvents events = layout switch
            {
                "int-long" => IntLongEvents.Log,
                "string-long" => StringLongEvents.Log,
                "mixed" => MixedEvents.Log,
                _ => throw new ArgumentException($"no layout {layout}"),
            };
            var gap = GapMicroseconds * Stopwatch.Frequency / 1_000_000;
            var first = Stopwatch.GetTimestamp() + gap;
            for (var id = 0; id < requests; id++)
            {
                var due = first + (id * gap);
                while (Stopwatch.GetTimestamp() < due)
                {
                    Thread.SpinWait(20);
                }

                events.Start(id, due);
                Spin(50);
                if (Injection.Slowed(id, every))
                {
                    Injection.Force();
                }

                events.Stop(id);
            }

            Console.WriteLine($"done {requests} requests");
            return 0;
        }

        private static void Spin(int microseconds)
        {
            var until = Stopwatch.GetTimestamp() + (microseconds * Stopwatch.Frequency / 1_000_000);
            while (Stopwatch.GetTimestamp() < until)
            {
                Thread.SpinWait(10);
            }
        }
    }

    internal interface IRequestEvents
    {
        void Start(int id, long arrival);

        void Stop(int id);
    }

    internal static class ForeignAppEvents
    {
        public const string ProviderName = "TailDb-Tests-Foreign";
    }

    /// <summary>The layout a new user writes first: the id, then the arrival, through WriteEvent (which binds WriteEvent(int, long, long) and writes the id in 8 bytes).</summary>
    [EventSource(Name = ForeignAppEvents.ProviderName)]
    internal sealed class IntLongEvents : EventSource, IRequestEvents
    {
        public static readonly IntLongEvents Log = new();

        [Event(1)]
        public void RequestStart(int requestId, long arrivalTimestamp) => WriteEvent(1, requestId, arrivalTimestamp);

        [Event(2)]
        public void RequestStop(int requestId) => WriteEvent(2, requestId);

        void IRequestEvents.Start(int id, long arrival) => RequestStart(id, arrival);

        void IRequestEvents.Stop(int id) => RequestStop(id);
    }

    /// <summary>A string before the arrival, through the typed WriteEvent(int, string, long) (exact).</summary>
    [EventSource(Name = ForeignAppEvents.ProviderName)]
    internal sealed class StringLongEvents : EventSource, IRequestEvents
    {
        public static readonly StringLongEvents Log = new();

        [Event(1)]
        public void RequestStart(string route, long arrivalTimestamp) => WriteEvent(1, route, arrivalTimestamp);

        [Event(2)]
        public void RequestStop(int requestId) => WriteEvent(2, requestId);

        void IRequestEvents.Start(int id, long arrival) => RequestStart($"/orders/{id}", arrival);

        void IRequestEvents.Stop(int id) => RequestStop(id);
    }

    /// <summary>Fields of several sizes and strings before an arrival of another name (dueAt: the analyzer needs --arrival-field), through WriteEventCore.</summary>
    [EventSource(Name = ForeignAppEvents.ProviderName)]
    internal sealed class MixedEvents : EventSource, IRequestEvents
    {
        public const string ArrivalField = "dueAt";

        public static readonly MixedEvents Log = new();

        private static readonly Guid s_tenant = Guid.Parse("6f1c2a0e-9a4b-4f55-8d0e-1c2b3a4d5e6f");

        [Event(1)]
        public unsafe void RequestStart(short shard, Guid tenant, string method, string route, bool retry, int requestId, long dueAt)
        {
            fixed (char* methodChars = method)
            fixed (char* routeChars = route)
            {
                var retryBool = retry ? 1 : 0;
                var data = stackalloc EventData[7];
                data[0] = new EventData { DataPointer = (nint)(&shard), Size = sizeof(short) };
                data[1] = new EventData { DataPointer = (nint)(&tenant), Size = sizeof(Guid) };
                data[2] = new EventData { DataPointer = (nint)methodChars, Size = (method.Length + 1) * 2 };
                data[3] = new EventData { DataPointer = (nint)routeChars, Size = (route.Length + 1) * 2 };
                data[4] = new EventData { DataPointer = (nint)(&retryBool), Size = sizeof(int) };
                data[5] = new EventData { DataPointer = (nint)(&requestId), Size = sizeof(int) };
                data[6] = new EventData { DataPointer = (nint)(&dueAt), Size = sizeof(long) };
                WriteEventCore(1, 7, data);
            }
        }

        [Event(2)]
        public void RequestStop(int requestId) => WriteEvent(2, requestId);

        void IRequestEvents.Start(int id, long arrival) => RequestStart((short)(id % 7), s_tenant, "GET", $"/orders/{id}/items", id % 3 == 0, id, arrival);

        void IRequestEvents.Stop(int id) => RequestStop(id);
    }
}
