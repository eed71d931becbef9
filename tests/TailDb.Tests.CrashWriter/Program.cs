using System.Globalization;
using System.Text;
using TailDb;

// Protocol on stdout, one line each, written only by this process:
//   READY                          the store is open (recovery done)
//   I <thread> <op> <key> <value>  about to Put (op P) or Delete (op D; value "-")
//   A <thread>                     that thread's last intended operation returned: acknowledged
// The parent SIGKILLs us at a random moment and checks the reopened store against the log.
if (args.Length < 2)
{
    Console.Error.WriteLine("usage: TailDb.Tests.CrashWriter <directory> <seed> [threads] [keysPerThread]");
    return 2;
}

string directory = args[0];
int seed = int.Parse(args[1], CultureInfo.InvariantCulture);
int threads = args.Length > 2 ? int.Parse(args[2], CultureInfo.InvariantCulture) : 4;
int keysPerThread = args.Length > 3 ? int.Parse(args[3], CultureInfo.InvariantCulture) : 50;

var stdout = new StreamWriter(Console.OpenStandardOutput(), new UTF8Encoding(false)) { AutoFlush = true };
var output = TextWriter.Synchronized(stdout);
using var store = TailDbStore.Open(new TailDbOptions
{
    Directory = directory,
    Durability = Durability.Fsync,
    SegmentMaxBytes = 32 * 1024,
    CacheCapacityBytes = 16 * 1024,
});
output.WriteLine("READY");

var workers = new Thread[threads + 1];
for (int t = 0; t < threads; t++)
{
    int thread = t;
    workers[t] = new Thread(() =>
    {
        var random = new Random(seed * 31 + thread);
        for (long n = 0; ; n++)
        {
            string key = $"t{thread}-k{random.Next(keysPerThread)}";
            if (random.Next(10) == 0)
            {
                output.WriteLine($"I {thread} D {key} -");
                store.Delete(key);
            }
            else
            {
                // Value = key | seed | counter | padding: unique per write, checkable per key.
                string value = $"{key}|{seed}|{n}|{new string('x', random.Next(200))}";
                output.WriteLine($"I {thread} P {key} {value}");
                store.Put(key, Encoding.UTF8.GetBytes(value));
            }

            output.WriteLine($"A {thread}");
        }
    });
}

// Compaction runs too, so kills also land inside it.
workers[threads] = new Thread(() =>
{
    while (true)
    {
        Thread.Sleep(40);
        store.Compact();
    }
});

foreach (Thread worker in workers)
{
    worker.IsBackground = true;
    worker.Start();
}

Thread.Sleep(Timeout.Infinite);
return 0;
