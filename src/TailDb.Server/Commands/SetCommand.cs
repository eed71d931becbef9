using TailDb.Server.Protocol;

namespace TailDb.Server.Commands;

/// <summary>
/// SET key value [NX|XX]. A plain SET is a store Put (and, pipelined with other plain SETs, joins
/// the connection's <see cref="SetBatch"/>). NX/XX go to the store as a conditional put, which
/// decides and appends under the writer lock: atomic against every other write, with no lock of
/// the server's own. The durability wait (fsync group commit) happens after that lock is released.
/// </summary>
public static class SetCommand
{
    public static ValueTask Execute(CommandContext c)
    {
        if (c.Request.Count < 3)
        {
            c.WrongArity(CommandKind.Set);
            return default;
        }

        if (!TryParseCondition(c, out PutCondition condition) || !c.CheckKey(c.Request.Span(1)) || !c.CheckValue(c.Request.Span(2)))
        {
            return default;
        }

        return condition == PutCondition.Always
            ? StoreWrites.Reply(c, StoreWrites.Put(c, c.Request[1], c.Request[2]), StoreWrites.OkReply)
            : Write(c, condition, RespWriter.NullBulk, StoreWrites.OkReply);
    }

    /// <summary>Writes request[2] under request[1] if <paramref name="condition"/> holds; replies <paramref name="ok"/>, or <paramref name="skipped"/> when it does not.</summary>
    internal static ValueTask Write(CommandContext c, PutCondition condition, ReadOnlySpan<byte> skipped, byte[] ok)
    {
        var put = new BatchPut(c.Request[1], c.Request[2], condition);
        Span<PutStatus> status = stackalloc PutStatus[1];
        ValueTask durable = c.Store.PutBatchAsync(new ReadOnlySpan<BatchPut>(in put), status);
        switch (status[0])
        {
            case PutStatus.Written:
                return StoreWrites.Reply(c, durable, ok);
            case PutStatus.ConditionNotMet:
                c.Raw(skipped);
                break;
            case PutStatus.Invalid:
                StoreWrites.ValueTooLarge(c);
                break;
            default:
                StoreWrites.Faulted(c, c.Store.FaultMessage);
                break;
        }

        return default;
    }

    private static bool TryParseCondition(CommandContext c, out PutCondition condition)
    {
        condition = PutCondition.Always;
        for (int i = 3; i < c.Request.Count; i++)
        {
            ReadOnlySpan<byte> option = c.Request.Span(i);
            PutCondition next = CommandTable.Is(option, "NX"u8) ? PutCondition.IfAbsent : CommandTable.Is(option, "XX"u8) ? PutCondition.IfPresent : PutCondition.Always;
            if (next == PutCondition.Always)
            {
                bool expiry = CommandTable.Is(option, "EX"u8) || CommandTable.Is(option, "PX"u8) || CommandTable.Is(option, "EXAT"u8) || CommandTable.Is(option, "PXAT"u8) || CommandTable.Is(option, "KEEPTTL"u8);
                c.Error(expiry ? "ERR TailDb keys do not expire: SET EX/PX/EXAT/PXAT/KEEPTTL are not supported" : "ERR syntax error");
                return false;
            }

            if (condition != PutCondition.Always && condition != next)
            {
                c.Error("ERR syntax error");
                return false;
            }

            condition = next;
        }

        return true;
    }
}
