using System.Diagnostics;
using System.Globalization;
using System.Net;
using System.Net.Sockets;
using System.Text;
using TailDb.LoadTest.Target;

namespace TailDb.LoadTest.FanOut;

/// <summary>
/// twemproxy (Debian's `nutcracker`) in front of the shards, from a config this class writes: one
/// pool on a free loopback port, `distribution: ketama`, `hash: fnv1a_64` (what
/// <see cref="KetamaRing"/> computes), the servers named shard0..shardN-1 so the ring does not
/// depend on their ports, no host ejection (a paused shard must stay a shard). Stopped by killing it.
/// </summary>
public sealed class Twemproxy : IDisposable
{
    /// <summary>The Debian package and the script that installs it, for the one line a missing tool gets.</summary>
    public const string Package = "nutcracker";
    public const string InstallScript = ".ci/proxy-tools.sh";
    public const string Executable = "nutcracker";

    private readonly Process _process;
    private readonly string _directory;

    private Twemproxy(Process process, string directory, TargetAddress address)
    {
        _process = process;
        _directory = directory;
        Address = address;
    }

    /// <summary>Where clients connect.</summary>
    public TargetAddress Address { get; }

    /// <summary>The server names the config gives (and the ring hashes).</summary>
    public static IReadOnlyList<string> ShardNames(int count) => [.. Enumerable.Range(0, count).Select(i => $"shard{i}")];

    /// <summary>nutcracker's path on PATH, or null.</summary>
    public static string? Find() =>
        (Environment.GetEnvironmentVariable("PATH") ?? "").Split(Path.PathSeparator, StringSplitOptions.RemoveEmptyEntries)
            .Select(dir => Path.Combine(dir, Executable)).FirstOrDefault(File.Exists);

    /// <summary>The one line a run without nutcracker prints.</summary>
    public static string Missing => $"{Executable} (twemproxy) is not on PATH: run {InstallScript} (apt-get install -y {Package}; .ci/run does)";

    /// <summary>The config for <paramref name="shards"/>, listening on <paramref name="port"/>.</summary>
    public static string Config(int port, IReadOnlyList<TargetAddress> shards, int timeoutMilliseconds)
    {
        ArgumentNullException.ThrowIfNull(shards);
        IReadOnlyList<string> names = ShardNames(shards.Count);
        var text = new StringBuilder();
        text.Append(CultureInfo.InvariantCulture, $"""
            fanout:
              listen: 127.0.0.1:{port}
              hash: fnv1a_64
              distribution: ketama
              redis: true
              auto_eject_hosts: false
              preconnect: true
              timeout: {timeoutMilliseconds}
              servers:

            """);
        for (int i = 0; i < shards.Count; i++)
        {
            text.Append(CultureInfo.InvariantCulture, $"   - {shards[i].Host}:{shards[i].Port}:1 {names[i]}\n");
        }

        return text.ToString();
    }

    /// <summary>Writes the config into <paramref name="directory"/>, starts nutcracker on it and waits until it answers PING.</summary>
    public static async Task<Twemproxy> StartAsync(IReadOnlyList<TargetAddress> shards, string directory, int timeoutMilliseconds, CancellationToken cancellationToken)
    {
        string executable = Find() ?? throw new LoadTestException(ExitCode.ServerFailed, Missing);
        int port = FreePort(), statsPort = FreePort();
        string config = Path.Combine(directory, "nutcracker.yml");
        await File.WriteAllTextAsync(config, Config(port, shards, timeoutMilliseconds), cancellationToken).ConfigureAwait(false);
        var start = new ProcessStartInfo(executable)
        {
            UseShellExecute = false,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
        };
        foreach (string argument in new[]
        {
            "-c", config, "-s", port == statsPort ? "0" : statsPort.ToString(CultureInfo.InvariantCulture), "-a", "127.0.0.1",
            "-p", Path.Combine(directory, "nutcracker.pid"), "-o", Path.Combine(directory, "nutcracker.log"), "-v", "4",
        })
        {
            start.ArgumentList.Add(argument);
        }

        Process process = Process.Start(start) ?? throw new LoadTestException(ExitCode.ServerFailed, $"could not start {executable}");
        var proxy = new Twemproxy(process, directory, new TargetAddress(TargetKind.Endpoint, "127.0.0.1", port));
        try
        {
            await proxy.WaitAnsweringAsync(TimeSpan.FromSeconds(20), cancellationToken).ConfigureAwait(false);
            return proxy;
        }
        catch
        {
            proxy.Dispose();
            throw;
        }
    }

    private async Task WaitAnsweringAsync(TimeSpan limit, CancellationToken cancellationToken)
    {
        var deadline = Stopwatch.StartNew();
        string? last = null;
        while (deadline.Elapsed < limit)
        {
            if (_process.HasExited)
            {
                throw new LoadTestException(ExitCode.ServerFailed, $"nutcracker exited with code {_process.ExitCode}: {LogTail() ?? "no log"}");
            }

            try
            {
                if (RespControl.Command(Address, 2000, "PING") == "PONG")
                {
                    return;
                }
            }
            catch (LoadTestException e)
            {
                last = e.Message;
            }

            await Task.Delay(50, cancellationToken).ConfigureAwait(false);
        }

        throw new LoadTestException(ExitCode.ServerFailed, $"nutcracker did not answer PING within {limit.TotalSeconds:0} s: {last ?? LogTail() ?? "no reply"}");
    }

    private string? LogTail()
    {
        string log = Path.Combine(_directory, "nutcracker.log");
        return File.Exists(log) ? string.Join(" | ", File.ReadLines(log).TakeLast(3)) : null;
    }

    private static int FreePort()
    {
        using var listener = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        listener.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        return ((IPEndPoint)listener.LocalEndPoint!).Port;
    }

    public void Dispose()
    {
        try
        {
            if (!_process.HasExited)
            {
                _process.Kill();
                _process.WaitForExit(5000);
            }
        }
        catch (InvalidOperationException)
        {
            // Already reaped.
        }

        _process.Dispose();
    }
}
