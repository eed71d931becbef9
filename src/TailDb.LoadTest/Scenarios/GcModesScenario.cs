using TailDb.LoadTest.Harness;

namespace TailDb.LoadTest.Scenarios;

/// <summary>
/// Seed 004: a read benchmark whose p99 was 7 ms under workstation GC, 3 ms under server GC and
/// under 1 ms with no GC, which a whole-run CPU profile never showed. The same workload under the
/// three modes, interleaved --repeat times; the figure is the GC pauses' share of the slow set's time.
/// The handler keeps <see cref="RequestGarbageBytes"/> per request (twice the default workload's) so
/// that GC, not a loaded machine's scheduling, is what the workstation's slow set is made of.
/// </summary>
public sealed class GcModesScenario : IScenario
{
    private static readonly string[] Modes = ["workstation", "server", "nogc"];

    /// <summary>Garbage per request; the last 64 requests' stays reachable, so gen1 pauses copy it.</summary>
    public const int RequestGarbageBytes = 32 * 1024;

    public string Name => "gc-modes";

    public string Seed => "004";

    public string Sides => $"workstation → server → nogc, {RequestGarbageBytes / 1024} KiB of request garbage";

    public string Shows => "p99 per GC mode (median of --repeat) and the GC pauses' share of the slowest 1% falling mode by mode; the verdict names GC where there is GC";

    public int Runs(ScenarioSettings settings) => Modes.Length * settings.Repeat;

    public async Task<StoryOutcome> RunAsync(ScenarioRunner runner, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(runner);
        var runs = await runner.RunSideAsync("gc", new HarnessOptions { Gc = string.Join(',', Modes), Workload = runner.Workload with { AppAllocBytes = RequestGarbageBytes }, Repeat = runner.Settings.Repeat }, cancellationToken)
            .ConfigureAwait(false);
        var byMode = Modes.Select(m => runs.Where(r => r.Mode == m).ToList()).ToList();
        var rows = Modes.Select((m, i) => StoryTable.GcRow(m, byMode[i])).ToList();
        double[] shares = [.. rows.Select(r => r.Value)];
        long[] p99 = [.. rows.Select(r => r.P99Nanoseconds)];
        bool sharesFall = shares[0] > shares[1] && shares[1] >= shares[2];
        bool p99Falls = p99[0] > p99[1] && p99[1] > p99[2];
        string figures = $"GC share of the slow set {string.Join(" → ", shares.Select(StoryTable.Percent))}, p99 {string.Join(" → ", p99.Select(StoryTable.Ms))}";
        string finding = (sharesFall, p99Falls) switch
        {
            (true, true) => $"{figures}: both fall mode by mode",
            _ => $"{figures}: " + string.Join("; ", new[]
            {
                sharesFall ? null : "the GC share does not fall mode by mode",
                p99Falls ? null : "the p99 does not fall mode by mode",
            }.Where(s => s is not null)) + " " + StoryTable.NoisyMachine(),
        };
        return new StoryOutcome(Name, "GC share", rows, sharesFall && p99Falls, finding);
    }
}
