namespace TailDb;

/// <summary>What <see cref="TailDbStore.TryGetAsync"/> read (not named ReadResult: System.IO.Pipelines has one): a status, and the value for Hit and Miss.</summary>
public readonly record struct GetResult(ReadStatus Status, byte[]? Value);
