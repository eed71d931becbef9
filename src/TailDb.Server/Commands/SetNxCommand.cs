namespace TailDb.Server.Commands;

/// <summary>SETNX key value: :1 if written, :0 if the key existed (StackExchange.Redis's When.NotExists).</summary>
public static class SetNxCommand
{
    private static readonly byte[] One = ":1\r\n"u8.ToArray();

    public static ValueTask Execute(CommandContext c)
    {
        if (c.Request.Count != 3)
        {
            c.WrongArity(CommandKind.SetNx);
            return default;
        }

        return c.CheckKey(c.Request.Span(1)) ? SetCommand.Write(c, PutCondition.IfAbsent, ":0\r\n"u8, One) : default;
    }
}
