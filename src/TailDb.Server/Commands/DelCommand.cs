using TailDb.Server.Protocol;

namespace TailDb.Server.Commands;

/// <summary>DEL key [key ...]: the number of keys that existed.</summary>
public static class DelCommand
{
    public static ValueTask Execute(CommandContext c) => Execute(c, CommandKind.Del);

    internal static ValueTask Execute(CommandContext c, CommandKind kind)
    {
        if (c.Request.Count < 2)
        {
            c.WrongArity(kind);
            return default;
        }

        for (int i = 1; i < c.Request.Count; i++)
        {
            if (!c.CheckKey(c.Request.Span(i)))
            {
                return default;
            }
        }

        return Run(c, 1, 0);
    }

    private static ValueTask Run(CommandContext c, int from, long deleted)
    {
        for (int i = from; i < c.Request.Count; i++)
        {
            ValueTask<bool> delete = StoreWrites.Delete(c, c.Request[i]);

            if (!delete.IsCompletedSuccessfully)
            {
                return RunAsync(c, i, deleted, delete);
            }

            deleted += delete.Result ? 1 : 0;
        }

        RespWriter.WriteInteger(c.Output, deleted);
        return default;
    }

    private static async ValueTask RunAsync(CommandContext c, int at, long deleted, ValueTask<bool> pending)
    {
        try
        {
            deleted += await pending.ConfigureAwait(false) ? 1 : 0;
        }
        catch (TailDbFaultedException e)
        {
            StoreWrites.Faulted(c, e);
            return;
        }

        await Run(c, at + 1, deleted).ConfigureAwait(false);
    }
}
