namespace TailDb.Server.Commands;

/// <summary>
/// How commands write: PutAsync/DeleteAsync complete synchronously with durability None (no task,
/// no allocation) and wait for the group commit with Fsync without blocking a thread. A faulted
/// store (a failed write or fsync) becomes an error reply, not a dropped connection.
/// </summary>
public static class StoreWrites
{
    public static readonly byte[] OkReply = "+OK\r\n"u8.ToArray();

    public static ValueTask Put(CommandContext c, ReadOnlyMemory<byte> key, ReadOnlyMemory<byte> value)
    {
        try
        {
            return c.Store.PutAsync(key, value);
        }
        catch (TailDbFaultedException e)
        {
            return ValueTask.FromException(e);
        }
    }

    public static ValueTask<bool> Delete(CommandContext c, ReadOnlyMemory<byte> key)
    {
        try
        {
            return c.Store.DeleteAsync(key);
        }
        catch (TailDbFaultedException e)
        {
            return ValueTask.FromException<bool>(e);
        }
    }

    /// <summary>Writes <paramref name="reply"/> once <paramref name="write"/> is durable, or the store's fault as an error.</summary>
    public static ValueTask Reply(CommandContext c, ValueTask write, byte[] reply)
    {
        if (write.IsCompletedSuccessfully)
        {
            write.GetAwaiter().GetResult();
            c.Raw(reply);
            return default;
        }

        return ReplyAsync(c, write, reply);
    }

    private static async ValueTask ReplyAsync(CommandContext c, ValueTask write, byte[] reply)
    {
        try
        {
            await write.ConfigureAwait(false);
            c.Raw(reply);
        }
        catch (TailDbFaultedException e)
        {
            Faulted(c, e);
        }
    }

    public static void Faulted(CommandContext c, TailDbFaultedException e) => Faulted(c, e.Message);

    /// <summary>The reply to a SET whose value is over the store's limit (the store returned Invalid).</summary>
    public static void ValueTooLarge(CommandContext c) =>
        c.Error($"ERR value larger than the store's limit ({c.Server.Options.MaxValueBytes} bytes)");

    /// <summary>The fault's error reply when a status, not an exception, reported it (<see cref="TailDbStore.FaultMessage"/>).</summary>
    public static void Faulted(CommandContext c, string? message) => c.Error("ERR store faulted, writes are refused until restart: " + message);
}
