namespace TailDb.LoadTest.Scenarios;

/// <summary>
/// One seed's story as an experiment: the "before" and the "after" on the same seeded workload,
/// each recorded and analyzed, and the figure the story is about.
/// </summary>
public interface IScenario
{
    /// <summary>The name `scenario NAME` takes.</summary>
    string Name { get; }

    /// <summary>The seed story (docs/scenarios.md names each) this one reruns, as its three digits.</summary>
    string Seed { get; }

    /// <summary>Before → after, in a few words.</summary>
    string Sides { get; }

    /// <summary>What the story shows and which figure must move.</summary>
    string Shows { get; }

    /// <summary>How many harness runs (each of warm-up + measured seconds) the story makes.</summary>
    int Runs(ScenarioSettings settings);

    /// <summary>Runs every side and says whether the story showed.</summary>
    Task<StoryOutcome> RunAsync(ScenarioRunner runner, CancellationToken cancellationToken);
}
