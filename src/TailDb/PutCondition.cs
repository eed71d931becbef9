namespace TailDb;

/// <summary>When a put of a batch is written (Redis's SET NX / XX), decided under the writer lock.</summary>
public enum PutCondition
{
    Always,

    /// <summary>Only if the key has no value (NX).</summary>
    IfAbsent,

    /// <summary>Only if the key has a value (XX).</summary>
    IfPresent,
}
