using System.Buffers;
using System.Text;
using Xunit.Abstractions;

namespace TailDb.Tests.Storage;

/// <summary>
/// Seeded trials that flip or truncate random bytes of random segment files, then reopen.
/// The store may refuse to open (with a message naming the file) or open and report the damage;
/// what it must never do is return a value that is not the key's latest one, except that a
/// reported torn tail may roll the newest writes back (the state must then equal a prefix of the
/// write history: exactly what a crash before those writes would have left).
/// </summary>
public sealed class CorruptionTests(ITestOutputHelper output)
{
    private const int Trials = 200;
    private const int Keys = 12;

    private sealed record Write(string Key, string? Value);

    [Fact]
    public void FlippedOrTruncatedBytesNeverProduceAWrongValue()
    {
        int refused = 0, reportedAtOpen = 0, corruptReads = 0, clean = 0;
        for (int trial = 0; trial < Trials; trial++)
        {
            var random = new Random(1000 + trial);
            using var dir = new TestDirectory();
            var options = dir.Options() with { SegmentMaxBytes = 600, CacheCapacityBytes = trial % 2 == 0 ? 0 : 1 << 16 };
            List<Write> history = WriteHistory(options, random, compact: trial % 3 == 0);

            string[] segments = dir.SegmentFiles();
            string victim = segments[random.Next(segments.Length)];
            string damage = Damage(victim, random);

            TailDbStore store;
            try
            {
                store = TailDbStore.Open(options);
            }
            catch (TailDbCorruptionException e)
            {
                Assert.Contains(dir.Path, e.Message, StringComparison.Ordinal);
                refused++;
                continue;
            }

            using (store)
            {
                // Cutting the newest segment exactly at a record boundary is indistinguishable from
                // a crash before those writes (nothing records the length elsewhere): a prefix is
                // the right answer then too.
                bool newestCut = damage.StartsWith("truncated", StringComparison.Ordinal) && victim == segments[^1];
                bool truncated = store.Recovery.TailTruncations.Count > 0 || newestCut;
                reportedAtOpen += store.Recovery.FoundDamage ? 1 : 0;
                var observed = new Dictionary<string, string?>();
                var writer = new ArrayBufferWriter<byte>();
                foreach (string key in Enumerable.Range(0, Keys).Select(k => $"key{k}"))
                {
                    writer.ResetWrittenCount();
                    switch (store.TryGet(Encoding.UTF8.GetBytes(key), writer))
                    {
                        case ReadStatus.Corrupt:
                            corruptReads++;
                            break;
                        case ReadStatus.NotFound:
                            observed[key] = null;
                            break;
                        default:
                            observed[key] = Encoding.UTF8.GetString(writer.WrittenSpan);
                            break;
                    }
                }

                string context = $"trial {trial}: {damage} in {Path.GetFileName(victim)}";
                if (truncated)
                {
                    Assert.True(MatchesSomePrefix(history, observed), $"{context}: state is not any prefix of the history");
                }
                else
                {
                    Dictionary<string, string?> latest = Replay(history, history.Count);
                    foreach ((string key, string? value) in observed)
                    {
                        Assert.True(latest.GetValueOrDefault(key) == value, $"{context}: {key} reads '{value}', latest is '{latest.GetValueOrDefault(key)}'");
                    }
                }

                clean += store.Recovery.FoundDamage ? 0 : 1;
            }
        }

        output.WriteLine($"{Trials} trials: {refused} refused to open, {reportedAtOpen} opened reporting damage, {corruptReads} reads returned Corrupt, {clean} opened without damage at open");
        Assert.True(refused > 0 && reportedAtOpen > 0 && corruptReads > 0, "the trials did not exercise every outcome");
    }

    private static List<Write> WriteHistory(TailDbOptions options, Random random, bool compact)
    {
        var history = new List<Write>();
        using var store = TailDbStore.Open(options);
        for (int i = 0; i < 40; i++)
        {
            string key = $"key{random.Next(Keys)}";
            if (random.Next(8) == 0)
            {
                if (store.Delete(key))
                {
                    history.Add(new Write(key, null));
                }
            }
            else
            {
                string value = $"{key}#{i}#{new string('v', random.Next(40))}";
                store.Put(key, Encoding.UTF8.GetBytes(value));
                history.Add(new Write(key, value));
            }

            if (compact && i == 25)
            {
                store.Compact();
            }
        }

        return history;
    }

    private static string Damage(string path, Random random)
    {
        byte[] bytes = File.ReadAllBytes(path);
        if (random.Next(3) == 0)
        {
            int length = random.Next(bytes.Length);
            File.WriteAllBytes(path, bytes[..length]);
            return $"truncated to {length} of {bytes.Length} bytes";
        }

        int flips = random.Next(1, 4);
        var at = new List<int>();
        for (int i = 0; i < flips; i++)
        {
            int p = random.Next(bytes.Length);
            bytes[p] ^= (byte)(1 << random.Next(8));
            at.Add(p);
        }

        File.WriteAllBytes(path, bytes);
        return $"bits flipped at {string.Join(",", at)} of {bytes.Length} bytes";
    }

    private static Dictionary<string, string?> Replay(List<Write> history, int count)
    {
        var state = new Dictionary<string, string?>();
        foreach (Write w in history.Take(count))
        {
            state[w.Key] = w.Value;
        }

        return state;
    }

    private static bool MatchesSomePrefix(List<Write> history, Dictionary<string, string?> observed)
    {
        for (int m = history.Count; m >= 0; m--)
        {
            Dictionary<string, string?> state = Replay(history, m);
            if (observed.All(o => state.GetValueOrDefault(o.Key) == o.Value))
            {
                return true;
            }
        }

        return false;
    }
}
