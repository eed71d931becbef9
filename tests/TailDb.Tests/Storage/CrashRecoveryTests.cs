using System.Diagnostics;
using System.Globalization;
using System.Text;
using Xunit.Abstractions;

namespace TailDb.Tests.Storage;

/// <summary>
/// Kills a Durability.Fsync writer (tests/TailDb.Tests.CrashWriter) with SIGKILL at random
/// moments and checks that the reopened store holds every acknowledged write. Cycles default to
/// 20; set TAILDB_CRASH_CYCLES for more.
/// </summary>
public sealed class CrashRecoveryTests(ITestOutputHelper output) : IDisposable
{
    private readonly TestDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    [Fact]
    public void GetAfterSigkillReturnsEveryAcknowledgedWrite()
    {
        int cycles = int.TryParse(Environment.GetEnvironmentVariable("TAILDB_CRASH_CYCLES"), NumberStyles.None, CultureInfo.InvariantCulture, out int n) && n > 0 ? n : 20;
        var random = new Random(20261122);
        // The model: what each key must read as after the last verified reopen (null = absent).
        var model = new Dictionary<string, string?>(StringComparer.Ordinal);
        long acknowledged = 0;
        int truncations = 0;

        for (int cycle = 0; cycle < cycles; cycle++)
        {
            (List<Op>[] perThread, int[] acks) = RunAndKill(seed: cycle + 1, killAfterMs: random.Next(20, 250));

            // Per key, the states the store may be in: the last acknowledged one, or what the
            // thread's single in-flight operation (intended, not yet acknowledged) would make it.
            var expected = new Dictionary<string, string?>(model, StringComparer.Ordinal);
            var alternative = new Dictionary<string, string?>(StringComparer.Ordinal);
            for (int t = 0; t < perThread.Length; t++)
            {
                for (int i = 0; i < acks[t]; i++)
                {
                    expected[perThread[t][i].Key] = perThread[t][i].Value;
                }

                acknowledged += acks[t];
                if (perThread[t].Count > acks[t])
                {
                    Op inFlight = perThread[t][acks[t]];
                    alternative[inFlight.Key] = inFlight.Value;
                }
            }

            using var store = TailDbStore.Open(_dir.Options() with { Durability = Durability.Fsync });
            truncations += store.Recovery.TailTruncations.Count;
            Assert.Empty(store.Recovery.CorruptRecords);
            foreach (string key in expected.Keys.Union(alternative.Keys))
            {
                string? actual = store.Get(key) is { } bytes ? Encoding.UTF8.GetString(bytes) : null;
                string? want = expected.GetValueOrDefault(key);
                bool ok = actual == want || (alternative.TryGetValue(key, out string? maybe) && actual == maybe);
                Assert.True(ok, $"cycle {cycle}: key {key} reads '{actual}', acknowledged '{want}'");
                model[key] = actual;
            }
        }

        output.WriteLine($"{cycles} SIGKILL cycles, {acknowledged} acknowledged writes checked, {truncations} torn tails truncated");
        Assert.True(acknowledged > cycles, "the writer acknowledged too few writes for the test to mean anything");
    }

    private sealed record Op(string Key, string? Value);

    private (List<Op>[] PerThread, int[] Acks) RunAndKill(int seed, int killAfterMs)
    {
        const int threads = 4;
        string writer = Path.Combine(AppContext.BaseDirectory, "TailDb.Tests.CrashWriter.dll");
        var start = new ProcessStartInfo("dotnet")
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        foreach (string arg in new[] { "exec", writer, _dir.Path, seed.ToString(CultureInfo.InvariantCulture), threads.ToString(CultureInfo.InvariantCulture) })
        {
            start.ArgumentList.Add(arg);
        }

        using var process = Process.Start(start)!;
        var lines = new List<string>();
        var ready = new ManualResetEventSlim();
        var stderr = process.StandardError.ReadToEndAsync();
        var reader = new Thread(() =>
        {
            // Only whole lines count: a line cut by the kill was never fully logged.
            var pending = new StringBuilder();
            var buffer = new char[8192];
            int read;
            while ((read = process.StandardOutput.Read(buffer, 0, buffer.Length)) > 0)
            {
                for (int i = 0; i < read; i++)
                {
                    if (buffer[i] == '\n')
                    {
                        string line = pending.ToString();
                        pending.Clear();
                        lines.Add(line);
                        if (line == "READY")
                        {
                            ready.Set();
                        }
                    }
                    else
                    {
                        pending.Append(buffer[i]);
                    }
                }
            }

            ready.Set();
        });
        reader.Start();

        Assert.True(ready.Wait(TimeSpan.FromSeconds(60)), "the crash writer did not start");
        Thread.Sleep(killAfterMs);
        process.Kill(); // SIGKILL on Unix: no finalizers, no flush, no Dispose
        process.WaitForExit();
        reader.Join();
        Assert.True(lines.Contains("READY"), $"the crash writer failed: {stderr.Result}");

        var perThread = Enumerable.Range(0, threads).Select(_ => new List<Op>()).ToArray();
        var acks = new int[threads];
        foreach (string line in lines)
        {
            string[] parts = line.Split(' ', 5);
            if (parts[0] == "I")
            {
                int t = int.Parse(parts[1], CultureInfo.InvariantCulture);
                perThread[t].Add(new Op(parts[3], parts[2] == "P" ? parts[4] : null));
            }
            else if (parts[0] == "A")
            {
                acks[int.Parse(parts[1], CultureInfo.InvariantCulture)]++;
            }
        }

        return (perThread, acks);
    }
}
