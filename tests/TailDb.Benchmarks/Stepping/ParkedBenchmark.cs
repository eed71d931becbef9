using System.Reflection;
using BenchmarkDotNet.Attributes;
using TailDb.Benchmarks.Configuration;

namespace TailDb.Benchmarks.Stepping;

/// <summary>
/// <c>--park Class.Method</c>: one benchmark method set up as BenchmarkDotNet sets it up (its
/// [GlobalSetup], the quick scale), called until the JIT has compiled it at tier 1 with its
/// profile, then called once every 50 ms until the file named by <c>TAILDB_PARK_UNTIL</c> exists.
/// scripts/hit-instructions.sh attaches gdb meanwhile and single-steps calls from the method's
/// entry to its return: instructions per call, the same on a busy machine as on a quiet one (this
/// machine's virtual CPU has no hardware counters, so perf stat cannot count them).
/// </summary>
public static class ParkedBenchmark
{
    public const string Flag = "--park";
    public const string UntilVariable = "TAILDB_PARK_UNTIL";

    /// <summary>Runs the parked mode when <paramref name="args"/> asks for it; false otherwise.</summary>
    public static bool TryRun(string[] args, out int exitCode)
    {
        exitCode = 0;
        int at = Array.IndexOf(args, Flag);
        if (at < 0)
        {
            return false;
        }

        string? name = at + 1 < args.Length ? args[at + 1] : null;
        string? until = Environment.GetEnvironmentVariable(UntilVariable);
        int dot = name?.LastIndexOf('.') ?? -1;
        Type? type = dot > 0 ? typeof(ParkedBenchmark).Assembly.GetTypes().FirstOrDefault(t => t.FullName!.EndsWith("." + name![..dot], StringComparison.Ordinal)) : null;
        MethodInfo? method = type?.GetMethod(name![(dot + 1)..], BindingFlags.Public | BindingFlags.Instance, Type.EmptyTypes);
        if (method?.GetCustomAttribute<BenchmarkAttribute>() is null || until is null)
        {
            Console.Error.WriteLine($"usage: {UntilVariable}=FILE TailDb.Benchmarks {Flag} Class.Method (a [Benchmark] method without parameters, e.g. GetHitBenchmarks.ZeroCopyTryGet)");
            exitCode = 2;
            return true;
        }

        Environment.SetEnvironmentVariable(SuiteScale.Variable, SuiteScale.Quick.Name);
        object instance = Activator.CreateInstance(type!)!;
        // The setup BenchmarkDotNet would run for this method: one that targets it, else an untargeted one.
        MethodInfo[] setups = type!.GetMethods().Where(m => m.GetCustomAttribute<GlobalSetupAttribute>() is not null).ToArray();
        (setups.FirstOrDefault(m => m.GetCustomAttribute<GlobalSetupAttribute>()!.Targets.Contains(method.Name))
            ?? setups.FirstOrDefault(m => m.GetCustomAttribute<GlobalSetupAttribute>()!.Targets.Length == 0))?.Invoke(instance, null);

        // Tier 0, the instrumented tier, then tier 1: each promotion waits for 30 calls and a
        // quiet 100 ms, so calls in rounds with pauses between them.
        for (int round = 0; round < 20; round++)
        {
            for (int i = 0; i < 20_000; i++)
            {
                method.Invoke(instance, null);
            }

            Thread.Sleep(100);
        }

        Console.WriteLine($"parked {type.Name}.{method.Name} pid {Environment.ProcessId}");
        Console.Out.Flush();
        while (!File.Exists(until))
        {
            method.Invoke(instance, null);
            Thread.Sleep(50);
        }

        type.GetMethods().FirstOrDefault(m => m.GetCustomAttribute<GlobalCleanupAttribute>() is not null)?.Invoke(instance, null);
        return true;
    }
}
