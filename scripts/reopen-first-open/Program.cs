using System.Diagnostics;
using System.Globalization;
using TailDb;

// A store's first open in a fresh process, as a restart pays it: ReopenBenchmarks' shape (16 B
// keys, 64 B values, compacted, with hints and with the hints deleted), but one open per process,
// with the process's minor page faults during it. BenchmarkDotNet's steady state opens the store
// again and again in one process, where the GC hands back memory already faulted in.
//   dotnet ReopenFirstOpen.dll DATA_DIR [KEYS] [hints|scan]
if (args.Length < 1)
{
    Console.Error.WriteLine("usage: ReopenFirstOpen DATA_DIR [KEYS] [hints|scan]");
    return 2;
}

string root = args[0];
int keys = args.Length > 1 ? int.Parse(args[1], CultureInfo.InvariantCulture) : 1_000_000;
bool hints = args.Length <= 2 || args[2] == "hints";
string hinted = Path.Combine(root, "hinted"), scanned = Path.Combine(root, "scanned");
if (!File.Exists(Path.Combine(root, "complete")))
{
    Directory.CreateDirectory(hinted);
    Directory.CreateDirectory(scanned);
    var key = new byte[16];
    var value = new byte[64];
    var random = new Random(42);
    using (var store = TailDbStore.Open(new TailDbOptions { Directory = hinted, ExpectedKeyCount = keys, CacheCapacityBytes = 0 }))
    {
        for (int i = 0; i < keys; i++)
        {
            random.NextBytes(key);
            BitConverter.TryWriteBytes(key, i);
            random.NextBytes(value);
            store.Put(key, value);
        }

        store.Compact();
    }

    foreach (string file in Directory.GetFiles(hinted).Where(f => !f.EndsWith(".hint", StringComparison.Ordinal)))
    {
        File.Copy(file, Path.Combine(scanned, Path.GetFileName(file)), overwrite: true);
    }

    File.WriteAllText(Path.Combine(root, "complete"), "");
    Console.WriteLine($"wrote {keys:N0} keys to {root}");
}

long faults = MinorFaults();
long started = Stopwatch.GetTimestamp();
using (var store = TailDbStore.Open(new TailDbOptions { Directory = hints ? hinted : scanned, ExpectedKeyCount = keys, CacheCapacityBytes = 0, ReadOnly = true }))
{
    double ms = Stopwatch.GetElapsedTime(started).TotalMilliseconds;
    Console.WriteLine(FormattableString.Invariant($"{(hints ? "hints" : "scan")} {ms:F1} ms, {MinorFaults() - faults} minor faults"));
}

return 0;

// Field 10 of /proc/self/stat (minflt), counted after the command name's closing parenthesis.
static long MinorFaults()
{
    string stat = File.ReadAllText("/proc/self/stat");
    return long.Parse(stat[(stat.LastIndexOf(')') + 2)..].Split(' ')[7], CultureInfo.InvariantCulture);
}
