using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using System.Runtime.CompilerServices;
using TailDb.LoadTest.Reporting;
using TailDb.LoadTest.Target;
using TailDb.LoadTest.Tests.Harness;
using TailDb.LoadTest.Workloads;
using TailDb.TestSupport.Skipping;

namespace TailDb.LoadTest.Tests.Target;

/// <summary>Skipped, with the reason, when redis-server is not on PATH (.ci/server-tools.sh installs it with apt when it can).</summary>
public sealed class RedisServerFactAttribute : FactAttribute
{
    public const string Absent = "redis-server not on PATH: run .ci/server-tools.sh (apt-get install -y redis-server; .ci/run does)";

    public RedisServerFactAttribute([CallerMemberName] string member = "", [CallerFilePath] string file = "")
        : this(RedisServerTests.Find() is not null, member, file)
    {
    }

    internal RedisServerFactAttribute(bool present, string member, string file)
    {
        if (!present)
        {
            Skip = Absent;
            DisplayName = SkipNotice.DisplayName(Skip, member, file);
        }
    }
}

/// <summary>The same client against redis-server: --target works with a RESP server that is not ours.</summary>
[Collection(WorkerProcessesGroup.Name)]
public sealed class RedisServerTests
{
    public static string? Find() =>
        (Environment.GetEnvironmentVariable("PATH") ?? "").Split(Path.PathSeparator)
            .Select(dir => Path.Combine(dir, "redis-server"))
            .FirstOrDefault(File.Exists);

    [RedisServerFact]
    public async Task EveryRequestOfTheScheduleIsAnsweredByRedisServer()
    {
        int port = FreePort();
        using Process redis = Process.Start(new ProcessStartInfo(Find()!, ["--port", port.ToString(System.Globalization.CultureInfo.InvariantCulture), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
        {
            RedirectStandardOutput = true,
            UseShellExecute = false,
        })!;
        try
        {
            var target = new TargetAddress(TargetKind.Endpoint, "127.0.0.1", port);
            await WaitForPongAsync(target);
            WorkloadOptions workload = RemoteSessionTests.Short();

            WorkerResult result = RemoteSessionTests.Run(target, workload, new ClientOptions { Connections = 2, Pipeline = 8 });

            RemoteSessionTests.AssertEveryScheduledRequestAnswered(result, workload);
            Assert.Null(result.ServerGc); // redis-server's INFO has no .NET GC figures
            Assert.Contains(result.Kinds, k => k.Kind == "get found" && k.Corrected.Count > 0);
        }
        finally
        {
            redis.Kill();
            await redis.WaitForExitAsync();
        }
    }

    private static async Task WaitForPongAsync(TargetAddress target)
    {
        for (int attempt = 0; ; attempt++)
        {
            try
            {
                Assert.Equal("PONG", RespControl.Command(target, 1000, "PING"));
                return;
            }
            catch (LoadTestException) when (attempt < 100)
            {
                await Task.Delay(100);
            }
        }
    }

    private static int FreePort()
    {
        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        return ((IPEndPoint)listener.LocalEndpoint).Port;
    }
}
