using System.Diagnostics;
using System.Runtime.CompilerServices;
using TailDb.Analyzer.Tests.Watch;
using Xunit.Abstractions;
using TailDb.TestSupport.Skipping;

namespace TailDb.Analyzer.Tests.Recording;

/// <summary>
/// dotnet-trace, the tool a user records with, found in the repository's artifacts/tools (where
/// .ci/trace-tools.sh installs it) or on PATH. A trace it recorded is one no code here wrote.
/// </summary>
internal static class DotnetTrace
{
    /// <summary>What a user would enable for TailDb: its events, the runtime's GC/JIT/contention/exception/thread-pool events, CPU samples.</summary>
    public const string Providers = "TailDb:0xFFFFFFFFFFFFFFFF:5,Microsoft-Windows-DotNETRuntime:0x1C019:5,Microsoft-DotNETCore-SampleProfiler";

    public static string? Find()
    {
        for (var dir = new DirectoryInfo(AppContext.BaseDirectory); dir is not null; dir = dir.Parent)
        {
            var local = Path.Combine(dir.FullName, "artifacts", "tools", "dotnet-trace");
            if (File.Exists(Path.Combine(dir.FullName, "TailDb.sln")))
            {
                return File.Exists(local) ? local : OnPath();
            }
        }

        return OnPath();
    }

    /// <summary>Records the test workload (3,000 TailDb Gets, a forced gen2 GC at requests 1,000 and 2,000) with `dotnet-trace collect`.</summary>
    public static async Task<string> RecordWorkloadAsync(string directory, ITestOutputHelper? output = null)
    {
        var tool = Find() ?? throw new InvalidOperationException("dotnet-trace is absent: run .ci/trace-tools.sh");
        var trace = Path.Combine(directory, "dotnet-trace.nettrace");
        var start = new ProcessStartInfo(tool) { RedirectStandardOutput = true, RedirectStandardError = true };
        foreach (var arg in new[] { "collect", "--providers", Providers, "-o", trace, "--", "dotnet", "exec", WatchTargets.Workload, "--requests", "3000", "--gap-us", "500", "--gc", "1000,2000" })
        {
            start.ArgumentList.Add(arg);
        }

        using var process = Process.Start(start)!;
        var stdout = process.StandardOutput.ReadToEndAsync();
        var stderr = process.StandardError.ReadToEndAsync();
        await process.WaitForExitAsync().WaitAsync(TimeSpan.FromMinutes(3));
        output?.WriteLine($"dotnet-trace collect --providers {Providers} -o {trace} -- dotnet exec {Path.GetFileName(WatchTargets.Workload)} ...: exit {process.ExitCode}");
        Assert.True(process.ExitCode == 0 && File.Exists(trace), $"dotnet-trace exited {process.ExitCode}: {await stdout} {await stderr}");
        return trace;
    }

    private static string? OnPath() =>
        (Environment.GetEnvironmentVariable("PATH") ?? "").Split(Path.PathSeparator)
            .Select(p => Path.Combine(p, "dotnet-trace"))
            .FirstOrDefault(File.Exists);
}

/// <summary>A fact that needs dotnet-trace; skipped, with the reason shown, only when it is absent.</summary>
public sealed class DotnetTraceFactAttribute : FactAttribute
{
    public const string Absent = "dotnet-trace not found in artifacts/tools or on PATH: run .ci/trace-tools.sh (.ci/run does)";

    public DotnetTraceFactAttribute([CallerMemberName] string member = "", [CallerFilePath] string file = "")
        : this(DotnetTrace.Find() is not null, member, file)
    {
    }

    internal DotnetTraceFactAttribute(bool present, string member, string file)
    {
        if (!present)
        {
            Skip = Absent;
            DisplayName = SkipNotice.DisplayName(Skip, member, file);
        }
    }
}

/// <summary>A theory that needs dotnet-trace; skipped, with the reason shown, only when it is absent.</summary>
public sealed class DotnetTraceTheoryAttribute : TheoryAttribute
{
    public DotnetTraceTheoryAttribute([CallerMemberName] string member = "", [CallerFilePath] string file = "")
    {
        if (DotnetTrace.Find() is null)
        {
            Skip = DotnetTraceFactAttribute.Absent;
            DisplayName = SkipNotice.DisplayName(Skip, member, file);
        }
    }
}

/// <summary>One dotnet-trace recording shared by the tests that read it.</summary>
public sealed class DotnetTraceRecording : IAsyncLifetime
{
    public string Directory { get; } = System.IO.Directory.CreateTempSubdirectory("taildb-dotnet-trace-").FullName;

    public string? Trace { get; private set; }

    public async Task InitializeAsync()
    {
        if (DotnetTrace.Find() is not null)
        {
            Trace = await DotnetTrace.RecordWorkloadAsync(Directory);
        }
    }

    public Task DisposeAsync()
    {
        System.IO.Directory.Delete(Directory, recursive: true);
        return Task.CompletedTask;
    }
}
