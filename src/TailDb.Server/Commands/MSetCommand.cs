namespace TailDb.Server.Commands;

/// <summary>
/// MSET key value [key value ...]. Each key's write is atomic; the command as a whole is not
/// (a reader may see some of the keys written before the others), unlike Redis. Every key and
/// value is checked before the first write, so a refused MSET writes none of its keys.
/// </summary>
public static class MSetCommand
{
    public static ValueTask Execute(CommandContext c)
    {
        if (c.Request.Count < 3 || c.Request.Count % 2 == 0)
        {
            c.WrongArity(CommandKind.MSet);
            return default;
        }

        for (int i = 1; i < c.Request.Count; i += 2)
        {
            if (!c.CheckKey(c.Request.Span(i)) || !c.CheckValue(c.Request.Span(i + 1)))
            {
                return default;
            }
        }

        return Run(c, 1);
    }

    private static ValueTask Run(CommandContext c, int from)
    {
        for (int i = from; i < c.Request.Count; i += 2)
        {
            ValueTask put = StoreWrites.Put(c, c.Request[i], c.Request[i + 1]);

            if (!put.IsCompletedSuccessfully)
            {
                return RunAsync(c, i, put);
            }

            put.GetAwaiter().GetResult();
        }

        c.Raw(StoreWrites.OkReply);
        return default;
    }

    private static async ValueTask RunAsync(CommandContext c, int at, ValueTask pending)
    {
        try
        {
            await pending.ConfigureAwait(false);
        }
        catch (TailDbFaultedException e)
        {
            StoreWrites.Faulted(c, e);
            return;
        }

        await Run(c, at + 2).ConfigureAwait(false);
    }
}
