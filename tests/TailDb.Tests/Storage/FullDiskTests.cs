using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Text;
using TailDb.TestSupport.Skipping;

namespace TailDb.Tests.Storage;

/// <summary>
/// A real full disk and a real read-only file system: a small tmpfs mounted for the test (needs
/// root and mount rights; the tests skip with the mount's own error otherwise).
/// </summary>
public sealed class FullDiskTests : IDisposable
{
    private readonly string _mount = Path.Combine(Path.GetTempPath(), "taildb-tests", "mnt-" + Guid.NewGuid().ToString("N"));
    private bool _mounted;

    public void Dispose()
    {
        if (_mounted)
        {
            Tmpfs.Run("umount", _mount);
        }

        try
        {
            Directory.Delete(_mount, recursive: true);
        }
        catch (IOException)
        {
        }
    }

    [TmpfsFact]
    public void FullDiskFaultsWithAClearErrorAndEveryAcknowledgedWriteReadsAfterRemountingBigger()
    {
        Mount("size=1m");
        string storeDir = Path.Combine(_mount, "store");
        var acknowledged = new Dictionary<string, string>();
        var options = new TailDbOptions { Directory = storeDir, Durability = Durability.Fsync, SegmentMaxBytes = 128 * 1024, CacheCapacityBytes = 0 };
        using (var store = TailDbStore.Open(options))
        {
            var fault = Assert.Throws<TailDbFaultedException>(() =>
            {
                for (int i = 0; i < 10_000; i++)
                {
                    string value = $"v{i}-{new string('z', 3000)}";
                    store.Put($"k{i}", Encoding.UTF8.GetBytes(value));
                    acknowledged[$"k{i}"] = value;
                }
            });
            Assert.Contains(storeDir, fault.Message, StringComparison.Ordinal);
            Assert.Contains("No space left on device", fault.ToString(), StringComparison.Ordinal);
            Assert.True(acknowledged.Count > 100, $"only {acknowledged.Count} writes fit in 1 MiB");
            AssertReadable(store, acknowledged);
        }

        Assert.True(Tmpfs.Run("mount", "-o", "remount,size=16m", _mount).Ok);
        using var reopened = TailDbStore.Open(options);
        AssertReadable(reopened, acknowledged);
        reopened.Put("after", "room"u8);
        Assert.Equal("room", Encoding.UTF8.GetString(reopened.Get("after")!));
    }

    [TmpfsFact]
    public void ReadOnlyFileSystemRefusesAWritableOpenClearlyAndServesReadOnlyOpens()
    {
        Mount("size=4m");
        string storeDir = Path.Combine(_mount, "store");
        var options = new TailDbOptions { Directory = storeDir, Durability = Durability.Fsync };
        var acknowledged = new Dictionary<string, string>();
        using (var store = TailDbStore.Open(options))
        {
            for (int i = 0; i < 200; i++)
            {
                store.Put($"k{i}", Encoding.UTF8.GetBytes($"v{i}"));
                acknowledged[$"k{i}"] = $"v{i}";
            }
        }

        Assert.True(Tmpfs.Run("mount", "-o", "remount,ro", _mount).Ok);
        Exception error = Assert.ThrowsAny<Exception>(() => TailDbStore.Open(options).Dispose());
        Assert.True(error is IOException or UnauthorizedAccessException, $"unexpected {error}");
        Assert.Contains(storeDir, error.Message, StringComparison.Ordinal);

        using (var readOnly = TailDbStore.Open(options with { ReadOnly = true }))
        {
            AssertReadable(readOnly, acknowledged);
        }

        Assert.True(Tmpfs.Run("mount", "-o", "remount,rw", _mount).Ok);
        using var reopened = TailDbStore.Open(options);
        AssertReadable(reopened, acknowledged);
        reopened.Put("after", "rw"u8);
    }

    private void Mount(string sizeOption)
    {
        Directory.CreateDirectory(_mount);
        (bool ok, string output) = Tmpfs.Run("mount", "-t", "tmpfs", "-o", sizeOption, "tmpfs", _mount);
        Assert.True(ok, output);
        _mounted = true;
    }

    private static void AssertReadable(TailDbStore store, Dictionary<string, string> acknowledged)
    {
        foreach ((string key, string value) in acknowledged)
        {
            Assert.Equal(value, store.Get(key) is { } bytes ? Encoding.UTF8.GetString(bytes) : null);
        }
    }
}

/// <summary>A fact that runs only where a tmpfs can be mounted; otherwise skipped with the mount's error.</summary>
public sealed class TmpfsFactAttribute : FactAttribute
{
    public TmpfsFactAttribute([CallerMemberName] string member = "", [CallerFilePath] string file = "")
    {
        if (Tmpfs.Unavailable is { } reason)
        {
            Skip = reason;
            DisplayName = SkipNotice.DisplayName(reason, member, file);
        }
    }
}

internal static class Tmpfs
{
    private static readonly Lazy<string?> Probe = new(ProbeMount);

    /// <summary>Null when a tmpfs mounts here; otherwise why not.</summary>
    public static string? Unavailable => Probe.Value;

    public static (bool Ok, string Output) Run(string tool, params string[] args)
    {
        var start = new ProcessStartInfo(tool) { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
        foreach (string arg in args)
        {
            start.ArgumentList.Add(arg);
        }

        try
        {
            using Process process = Process.Start(start)!;
            string output = process.StandardOutput.ReadToEnd() + process.StandardError.ReadToEnd();
            process.WaitForExit();
            return (process.ExitCode == 0, output.Trim());
        }
        catch (System.ComponentModel.Win32Exception e)
        {
            return (false, $"{tool}: {e.Message}");
        }
    }

    private static string? ProbeMount()
    {
        if (!OperatingSystem.IsLinux())
        {
            return "tmpfs mounts are Linux-only";
        }

        string dir = Path.Combine(Path.GetTempPath(), "taildb-tests", "probe-" + Guid.NewGuid().ToString("N"));
        Directory.CreateDirectory(dir);
        try
        {
            (bool ok, string output) = Run("mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", dir);
            if (!ok)
            {
                return $"cannot mount a tmpfs here: {output}";
            }

            Run("umount", dir);
            return null;
        }
        finally
        {
            Directory.Delete(dir);
        }
    }
}
