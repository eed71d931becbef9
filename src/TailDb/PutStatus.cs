namespace TailDb;

/// <summary>What became of one put of a batch. The batch reports this instead of throwing.</summary>
public enum PutStatus
{
    /// <summary>Appended and indexed; durable once the batch's task completes.</summary>
    Written,

    /// <summary>Its <see cref="PutCondition"/> did not hold: nothing written.</summary>
    ConditionNotMet,

    /// <summary>An empty key, a key over 64 KiB, or a value over <see cref="TailDbOptions.MaxValueBytes"/>: nothing written.</summary>
    Invalid,

    /// <summary>The store is faulted (this write or an earlier one failed): nothing written.</summary>
    Faulted,
}
