namespace TailDb;

/// <summary>One write of <see cref="TailDbStore.PutBatchAsync"/>: a key, its value, and when to write it.</summary>
public readonly record struct BatchPut(ReadOnlyMemory<byte> Key, ReadOnlyMemory<byte> Value, PutCondition Condition = PutCondition.Always);
