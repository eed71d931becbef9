namespace TailDb.Analyzer.Sources.Etw;

/// <summary>
/// The kernel logger writes no provider GUID: a system or perfinfo header carries a group byte (the
/// high byte of its hook id) and an event type. Windows' ProcessTrace hands such an event to its
/// consumer with the group's GUID as ProviderId and the type as Opcode; these are the GUIDs
/// TraceEvent's KernelTraceEventParser registers for each group (docs/etl.md "Kernel groups").
/// A group missing here is counted and its events are not raised: the reader does not guess.
/// </summary>
internal static class KernelGroups
{
    private static readonly Guid?[] s_byGroup = Build();

    private static readonly Guid s_image = new("2cb15d1d-5fc1-11d2-abe1-00a0c911f518");

    public static bool TryGetProvider(byte group, byte type, out Guid provider)
    {
        // The one hook whose group is not its provider: an image load is logged as 0x030A (Process group, type 10).
        if (group == 0x03 && type == 0x0A)
        {
            provider = s_image;
            return true;
        }

        var known = group < s_byGroup.Length ? s_byGroup[group] : null;
        provider = known ?? Guid.Empty;
        return known is not null;
    }

    private static Guid?[] Build()
    {
        var table = new Guid?[0x20];
        table[0x00] = new Guid("68fdd900-4a3e-11d1-84f4-0000f80464e3"); // EventTrace (the log file header, extensions)
        table[0x01] = new Guid("3d6fa8d4-fe05-11d0-9dda-00c04fd7ba7c"); // DiskIO
        table[0x02] = new Guid("3d6fa8d3-fe05-11d0-9dda-00c04fd7ba7c"); // Memory (page faults, HardFault)
        table[0x03] = new Guid("3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7c"); // Process
        table[0x04] = new Guid("90cbdc39-4a3e-11d1-84f4-0000f80464e3"); // FileIO
        table[0x05] = new Guid("3d6fa8d1-fe05-11d0-9dda-00c04fd7ba7c"); // Thread (also CSwitch, ReadyThread)
        table[0x06] = new Guid("9a280ac0-c8e0-11d1-84e2-00c04fb998a2"); // TcpIp
        table[0x08] = new Guid("bf3a50c5-a9c9-4988-a005-2df0b7c80f80"); // UdpIp
        table[0x09] = new Guid("ae53722e-c863-11d2-8659-00c04fa321a1"); // Registry
        table[0x0B] = new Guid("01853a65-418f-4f36-aefc-dc0f1d2fd235"); // SystemConfig
        table[0x0F] = new Guid("ce1dbfb4-137e-4da6-87b0-3f59aa102cbc"); // PerfInfo (Sample, DPC, ISR, SysCall)
        table[0x10] = new Guid("222962ab-6180-4b88-a825-346b75f2a24a"); // Heap
        table[0x11] = new Guid("89497f50-effe-4440-8cf2-ce6b1cdcaca7"); // Object
        table[0x14] = new Guid("2cb15d1d-5fc1-11d2-abe1-00a0c911f518"); // Image
        table[0x17] = new Guid("3ac66736-cc59-4cff-8115-8df50e39816b"); // CritSec
        table[0x18] = new Guid("def2fe46-7bd6-4b80-bd94-f57fe20d0ce3"); // StackWalk
        table[0x1A] = new Guid("45d8cccd-539f-4b72-a8b7-5c683142609a"); // ALPC
        table[0x1B] = new Guid("d837ca92-12b9-44a5-ad6a-3a65b3578aa8"); // SplitIo
        table[0x1C] = new Guid("c861d0e2-a2c1-4d36-9f9c-970bab943a12"); // ThreadPool
        return table;
    }
}
