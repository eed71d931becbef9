using System.Diagnostics;
using System.Globalization;
using System.Text.RegularExpressions;
using TailDb.LoadTest.Harness;
using TailDb.LoadTest.Workloads;
using TailDb.Tracing.Recording;

namespace TailDb.LoadTest.Target;

/// <summary>
/// The TailDb server that --target taildb-server runs against, started by the harness under one GC
/// mode: `dotnet exec --runtimeconfig &lt;mode + the server's frameworks&gt; TailDb.Server.dll --port 0
/// --gc-verify &lt;mode&gt;` (the server checks it got the mode) on loopback, with a store in a
/// temporary directory, sized as the in-process worker's store is, without the server's own warm-up
/// (the load test's --warmup phase warms it). Stopped with SHUTDOWN.
/// </summary>
public sealed partial class TailDbServerProcess : IDisposable
{
    private const int StderrLinesKept = 20;

    private readonly Process _process;
    private readonly string _runtimeConfig;
    private readonly TaskCompletionSource<int> _listening = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly Queue<string> _errors = new();

    private TailDbServerProcess(Process process, string runtimeConfig)
    {
        _process = process;
        _runtimeConfig = runtimeConfig;
        Exited = process.WaitForExitAsync();
    }

    /// <summary>One task for the process's exit (compared by identity in WhenAny).</summary>
    public Task Exited { get; }

    public bool HasExited => _process.HasExited;

    /// <summary>The server's process id (the fan-out scenario's tests stall one shard by it).</summary>
    public int ProcessId => _process.Id;

    /// <summary>Closes the server's standard input, as this process's death would.</summary>
    internal void CloseInput() => _process.StandardInput.Close();

    /// <summary>Where it listens, once <see cref="WaitListeningAsync"/> has returned.</summary>
    public TargetAddress Address { get; private set; } = TargetAddress.TailDbServer;

    /// <summary>
    /// Starts the server; with <paramref name="port"/> it waits, suspended, for a trace session
    /// (the caller starts it, which resumes the runtime).
    /// </summary>
    /// <param name="readStall">The server's --inject read-stall, if any.</param>
    public static TailDbServerProcess Start(GcMode mode, WorkloadOptions workload, string directory, DiagnosticPortListener? port, ServerReadStall? readStall = null)
    {
        ArgumentNullException.ThrowIfNull(mode);
        ArgumentNullException.ThrowIfNull(workload);
        string dll = Locate();
        string runtimeConfig = GcLaunch.RuntimeConfigWithFrameworksOf(mode, dll, Path.Combine(directory, $"server-{mode.Name}.runtimeconfig.json"));
        ProcessStartInfo start = GcLaunch.Create(mode with { RuntimeConfigPath = runtimeConfig }, dll);
        WorkerLaunch.RemoveInherited(start.Environment);
        port?.Configure(start);
        start.RedirectStandardOutput = true;
        start.RedirectStandardError = true;
        start.RedirectStandardInput = true;
        foreach (string argument in new[]
        {
            "--dir", Path.Combine(directory, "store"), "--port", "0", "--bind", "127.0.0.1",
            "--durability", workload.Durability.ToString(),
            "--cache-bytes", workload.CacheCapacityBytes.ToString(CultureInfo.InvariantCulture),
            "--max-value-bytes", Math.Max(1 << 20, workload.MaxValueBytes).ToString(CultureInfo.InvariantCulture),
            "--idle-timeout", "0",
            // No warm-up of its own: the load test warms it with the workload it measures (--warmup),
            // and each server start (per mode, per scenario side, per shard) would pay about 2 s more.
            "--warm-up", "0",
            // Our stdin pipe closes when this process dies, even by SIGKILL: the server goes with it.
            "--exit-with-stdin",
            "--gc-verify", mode.RuntimeConfigPath,
        })
        {
            start.ArgumentList.Add(argument);
        }

        if (readStall is not null)
        {
            start.ArgumentList.Add("--inject");
            start.ArgumentList.Add(readStall.Spelled);
        }

        Process process = Process.Start(start) ?? throw new LoadTestException(ExitCode.ServerFailed, $"mode '{mode.Name}': could not start {dll}");
        var server = new TailDbServerProcess(process, runtimeConfig);
        process.OutputDataReceived += (_, e) => server.OnOutput(e.Data);
        process.ErrorDataReceived += (_, e) => server.OnError(e.Data);
        process.BeginOutputReadLine();
        process.BeginErrorReadLine();
        return server;
    }

    /// <summary>Waits for the "listening on" line, then for PING to answer.</summary>
    public async Task<TargetAddress> WaitListeningAsync(TimeSpan timeout, CancellationToken cancellationToken)
    {
        Task done = await Task.WhenAny(_listening.Task, Exited, Task.Delay(timeout, cancellationToken)).ConfigureAwait(false);
        if (done != _listening.Task)
        {
            throw new LoadTestException(ExitCode.ServerFailed, HasExited
                ? $"the TailDb server exited with code {_process.ExitCode} before listening: {ErrorSummary() ?? "no output"}"
                : $"the TailDb server did not listen within {timeout.TotalSeconds:0} s");
        }

        Address = TargetAddress.TailDbServer.At("127.0.0.1", await _listening.Task.ConfigureAwait(false));
        if (RespControl.Command(Address, 5000, "PING") != "PONG")
        {
            throw new LoadTestException(ExitCode.ServerFailed, $"the TailDb server at {Address.Host}:{Address.Port} did not answer PING with PONG");
        }

        return Address;
    }

    /// <summary>SHUTDOWN, then waits for the exit; a server that does not go is killed and that is the error returned.</summary>
    public async Task<string?> StopAsync(TimeSpan grace)
    {
        if (HasExited)
        {
            return $"the TailDb server exited early with code {_process.ExitCode}: {ErrorSummary() ?? "no output"}";
        }

        try
        {
            RespControl.Shutdown(Address, 5000);
        }
        catch (LoadTestException e)
        {
            return $"the TailDb server did not take SHUTDOWN: {e.Message}";
        }

        if (await Task.WhenAny(Exited, Task.Delay(grace)).ConfigureAwait(false) != Exited)
        {
            _process.Kill(entireProcessTree: true);
            return $"the TailDb server did not exit within {grace.TotalSeconds:0} s of SHUTDOWN (killed)";
        }

        return _process.ExitCode == 0 ? null : $"the TailDb server exited with code {_process.ExitCode} after SHUTDOWN: {ErrorSummary() ?? "no output"}";
    }

    public void Dispose()
    {
        try
        {
            if (!_process.HasExited)
            {
                _process.Kill(entireProcessTree: true);
                _process.WaitForExit(5000);
            }
        }
        catch (InvalidOperationException)
        {
            // Never started or already reaped.
        }

        _process.Dispose();
        File.Delete(_runtimeConfig);
    }

    /// <summary>
    /// TailDb.Server.dll: next to this assembly, or the sibling project's build output of the same
    /// configuration (src/TailDb.Server/bin/Release/net10.0 beside src/TailDb.LoadTest/bin/Release/net10.0).
    /// </summary>
    public static string Locate()
    {
        const string Name = "TailDb.Server.dll";
        string here = Path.GetDirectoryName(typeof(TailDbServerProcess).Assembly.Location)!;
        string beside = Path.Combine(here, Name);
        if (File.Exists(beside))
        {
            return beside;
        }

        var output = new DirectoryInfo(here);
        string tfm = output.Name, configuration = output.Parent?.Name ?? "Release";
        for (DirectoryInfo? dir = output; dir is not null; dir = dir.Parent)
        {
            foreach (string candidate in new[]
            {
                Path.Combine(dir.FullName, "TailDb.Server", "bin", configuration, tfm, Name),
                Path.Combine(dir.FullName, "src", "TailDb.Server", "bin", configuration, tfm, Name),
            })
            {
                if (File.Exists(candidate))
                {
                    return candidate;
                }
            }
        }

        throw new LoadTestException(ExitCode.ServerFailed, $"--target taildb-server: {Name} not found beside {here} or in src/TailDb.Server/bin/{configuration}/{tfm}; build it: dotnet build src/TailDb.Server -c {configuration}");
    }

    private void OnOutput(string? line)
    {
        if (line is not null && ListeningLine().Match(line) is { Success: true } match)
        {
            _listening.TrySetResult(int.Parse(match.Groups[1].Value, CultureInfo.InvariantCulture));
        }
    }

    private void OnError(string? line)
    {
        if (line is null)
        {
            return;
        }

        lock (_errors)
        {
            _errors.Enqueue(line);
            if (_errors.Count > StderrLinesKept)
            {
                _errors.Dequeue();
            }
        }
    }

    private string? ErrorSummary()
    {
        lock (_errors)
        {
            return _errors.Count == 0 ? null : string.Join(" | ", _errors.Where(l => l.Length > 0).TakeLast(3));
        }
    }

    [GeneratedRegex(@"listening on \S+:(\d+) ")]
    private static partial Regex ListeningLine();
}
