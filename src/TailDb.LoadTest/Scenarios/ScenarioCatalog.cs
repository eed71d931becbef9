namespace TailDb.LoadTest.Scenarios;

/// <summary>Every story, in the order `scenario all` runs them.</summary>
public static class ScenarioCatalog
{
    public static IReadOnlyList<IScenario> All { get; } =
    [
        new GcModesScenario(),
        new ZeroCopyScenario(),
        new LargePayloadScenario(),
        new MicroburstsScenario(),
        new BucketsScenario(),
        new PoolWaitScenario(),
        new FanOutScenario(),
    ];

    public static IScenario? Find(string name) => All.FirstOrDefault(s => s.Name.Equals(name, StringComparison.OrdinalIgnoreCase));
}
