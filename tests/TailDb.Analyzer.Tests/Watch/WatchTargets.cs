using System.Net;
using System.Net.Sockets;
using Microsoft.Diagnostics.Tracing;
using TailDb.Analyzer.Computers;
using TailDb.Analyzer.Sources;
using TailDb.Analyzer.Watch;
using TailDb.Tracing.Sampling;

namespace TailDb.Analyzer.Tests.Watch;

/// <summary>The programs the watch tests watch, and what they read back from a capture.</summary>
internal static class WatchTargets
{
    public static string Workload => Path.Combine(AppContext.BaseDirectory, "TailDb.Analyzer.Tests.Workload.dll");

    /// <summary>The minimal-API app, from its own output folder (same configuration as the tests).</summary>
    public static string AspNetApp
    {
        get
        {
            var framework = new DirectoryInfo(AppContext.BaseDirectory.TrimEnd(Path.DirectorySeparatorChar));
            var configuration = framework.Parent!.Name;
            var tests = framework.Parent!.Parent!.Parent!.Parent!.FullName;
            return Path.Combine(tests, "TailDb.Analyzer.Tests.AspNet", "bin", configuration, framework.Name, "TailDb.Analyzer.Tests.AspNet.dll");
        }
    }

    /// <summary>The sampler the watch tests use unless they test another: it runs everywhere.</summary>
    public static readonly SamplerChoice EventPipe = SamplerChoice.Resolve(SamplerKind.EventPipe, null, out _);

    public static WatchSettings Settings(
        string captures, TriggerSettings triggers, RequestSelection? selection = null, int maxCaptures = 10, double cooldownSeconds = 0,
        double windowSeconds = 10, long maxBytes = 64 << 20, double marginMs = 300, SamplerChoice? sampler = null) =>
        new(selection ?? RequestSelection.TailDb, new RingLimits(TimeSpan.FromSeconds(windowSeconds), maxBytes), triggers,
            TimeSpan.FromMilliseconds(marginMs), maxCaptures, TimeSpan.FromSeconds(cooldownSeconds), captures, sampler ?? EventPipe, []);

    public static string NewDirectory(string name)
    {
        var path = Path.Combine(Path.GetTempPath(), $"taildb-watch-{name}-{Guid.NewGuid():N}");
        Directory.CreateDirectory(path);
        return path;
    }

    public static int FreeLoopbackPort()
    {
        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        return ((IPEndPoint)listener.LocalEndpoint).Port;
    }

    /// <summary>What TraceEvent's EventPipeEventSource reads from a capture.</summary>
    internal sealed record TraceEventView(long Events, double FirstMSec, double LastMSec, List<(string Name, Guid Activity, double MSec, string Payload)> Requests);

    public static TraceEventView ReadWithTraceEvent(string path, string provider)
    {
        long events = 0;
        double first = double.MaxValue, last = 0;
        var requests = new List<(string, Guid, double, string)>();
        using (var source = new EventPipeEventSource(path))
        {
            source.Dynamic.All += data =>
            {
                events++;
                first = Math.Min(first, data.TimeStampRelativeMSec);
                last = Math.Max(last, data.TimeStampRelativeMSec);
                if (data.ProviderName == provider && data.Opcode is TraceEventOpcode.Start or TraceEventOpcode.Stop)
                {
                    var payload = string.Join(" ", data.PayloadNames.Select((n, i) => $"{n}={data.PayloadValue(i)}"));
                    requests.Add((data.EventName, data.ActivityID, data.TimeStampRelativeMSec, payload));
                }
            };
            source.Process();
        }

        return new TraceEventView(events, first, last, requests);
    }
}
