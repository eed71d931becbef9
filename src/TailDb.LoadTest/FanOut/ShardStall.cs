using System.Runtime.InteropServices;

namespace TailDb.LoadTest.FanOut;

/// <summary>
/// A known pause on one shard, for the tests of the per-shard attribution: the shard's server
/// process is stopped (SIGSTOP) for <see cref="Milliseconds"/> every <see cref="EveryMilliseconds"/>
/// and continued (SIGCONT). Every thread of it stops, as in a stop-the-world pause, but the runtime
/// does not know: its trace shows no GC there, only the client's Gets to that shard waiting.
/// </summary>
public sealed partial record ShardStall(int Shard, int Milliseconds, int EveryMilliseconds)
{
    private const int SigCont = 18;
    private const int SigStop = 19;

    public string? Validate(int shards) =>
        Shard < 0 || Shard >= shards ? $"the stalled shard must be 0..{shards - 1} (got {Shard})"
        : Milliseconds < 1 || EveryMilliseconds <= Milliseconds ? $"a stall of {Milliseconds} ms every {EveryMilliseconds} ms leaves the shard no time to run"
        : !OperatingSystem.IsLinux() ? "stalling a shard stops its process with SIGSTOP: Linux only"
        : null;

    /// <summary>Stops and continues <paramref name="processId"/> until <paramref name="cancellationToken"/> fires; returns how many stalls it made.</summary>
    public async Task<int> RunAsync(int processId, CancellationToken cancellationToken)
    {
        int stalls = 0;
        try
        {
            while (!cancellationToken.IsCancellationRequested)
            {
                await Task.Delay(EveryMilliseconds - Milliseconds, cancellationToken).ConfigureAwait(false);
                if (Native.Kill(processId, SigStop) != 0)
                {
                    break;
                }

                stalls++;
                try
                {
                    Thread.Sleep(Milliseconds);
                }
                finally
                {
                    Native.Kill(processId, SigCont);
                }
            }
        }
        catch (OperationCanceledException)
        {
            // The run ended: the shard was continued after its last stall.
        }

        return stalls;
    }

    private static partial class Native
    {
        [LibraryImport("libc", EntryPoint = "kill", SetLastError = true)]
        public static partial int Kill(int pid, int signal);
    }
}
