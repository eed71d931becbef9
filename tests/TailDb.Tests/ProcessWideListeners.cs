namespace TailDb.Tests;

/// <summary>
/// Tests that enable process-wide EventListeners, or that measure allocations which such a
/// listener would cause, run alone in this collection.
/// </summary>
[CollectionDefinition(Name, DisableParallelization = true)]
public sealed class ProcessWideListeners
{
    public const string Name = "Process-wide listeners";
}
