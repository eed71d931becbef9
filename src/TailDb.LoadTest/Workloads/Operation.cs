namespace TailDb.LoadTest.Workloads;

public enum OperationType : byte
{
    Read,
    Write,
    Delete,
}

/// <summary>One pre-generated request: which key, what to do, whether the value is the large one.</summary>
public readonly record struct Operation(int Key, OperationType Type, bool Large);
