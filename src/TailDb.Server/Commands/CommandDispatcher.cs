using System.Diagnostics;
using System.Runtime.CompilerServices;
using TailDb.Server.Diagnostics;

namespace TailDb.Server.Commands;

/// <summary>
/// Runs one parsed command: AUTH gate, the Command Start/Stop events around it, its latency (from
/// the read that brought its bytes) into INFO's histograms.
/// </summary>
public static class CommandDispatcher
{
    public static ValueTask Execute(CommandContext c, long arrivalTimestamp)
    {
        CommandKind kind = CommandTable.Lookup(c.Request.Span(0));
        if (c.HasPendingRunOtherThan(kind))
        {
            // INFO after GETs in one pipeline reports them.
            c.RecordPending();
        }

        bool events = c.Server.CommandEvents();
        long replyStart = 0;
        long errors = 0;
        Guid activity = Guid.Empty;
        Guid previous = Guid.Empty;
        if (events)
        {
            replyStart = c.Output.UnflushedBytes;
            errors = c.Errors;
            activity = BeginCommandEvent(c, kind, arrivalTimestamp, out previous);
        }

        ValueTask run = Run(c, kind);
        if (events)
        {
            // The command's id was the thread's while the store ran inside it (so its events nest);
            // the thread goes on to other connections' commands, or this one's continues elsewhere.
            ServerEventSource.Leave(previous);
        }

        if (run.IsCompletedSuccessfully)
        {
            Complete(c, kind, arrivalTimestamp, activity, replyStart, errors);
            return default;
        }

        return CompleteAsync(c, kind, arrivalTimestamp, activity, replyStart, errors, run);
    }

    private static ValueTask Run(CommandContext c, CommandKind kind)
    {
        if (!c.Authenticated && kind is not (CommandKind.Auth or CommandKind.Quit))
        {
            c.Error("NOAUTH Authentication required.");
            return default;
        }

        return kind switch
        {
            CommandKind.Get => GetCommand.Execute(c),
            CommandKind.Set => SetCommand.Execute(c),
            CommandKind.Ping => PingCommand.Execute(c),
            CommandKind.Echo => EchoCommand.Execute(c),
            CommandKind.Del => DelCommand.Execute(c),
            CommandKind.Unlink => UnlinkCommand.Execute(c),
            CommandKind.SetNx => SetNxCommand.Execute(c),
            CommandKind.Exists => ExistsCommand.Execute(c),
            CommandKind.MGet => MGetCommand.Execute(c),
            CommandKind.MSet => MSetCommand.Execute(c),
            CommandKind.DbSize => DbSizeCommand.Execute(c),
            CommandKind.Info => InfoCommand.Execute(c),
            CommandKind.Config => ConfigCommand.Execute(c),
            CommandKind.Command => CommandCommand.Execute(c),
            CommandKind.Client => ClientCommand.Execute(c),
            CommandKind.Select => SelectCommand.Execute(c),
            CommandKind.Quit => QuitCommand.Execute(c),
            CommandKind.Shutdown => ShutdownCommand.Execute(c),
            CommandKind.Auth => AuthCommand.Execute(c),
            _ => Unknown(c),
        };
    }

    private static ValueTask Unknown(CommandContext c)
    {
        var args = new System.Text.StringBuilder();
        for (int i = 1; i < Math.Min(c.Request.Count, 8); i++)
        {
            args.Append('\'').Append(CommandTable.Printable(c.Request.Span(i))).Append("' ");
        }

        c.Error($"ERR unknown command '{CommandTable.Printable(c.Request.Span(0))}', with args beginning with: {args}");
        return default;
    }

    private static async ValueTask CompleteAsync(CommandContext c, CommandKind kind, long arrivalTimestamp, Guid activity, long replyStart, long errors, ValueTask run)
    {
        try
        {
            await run.ConfigureAwait(false);
        }
        finally
        {
            Complete(c, kind, arrivalTimestamp, activity, replyStart, errors);
        }
    }

    /// <param name="activity">The command's event activity id; empty when the Command events are off.</param>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void Complete(CommandContext c, CommandKind kind, long arrivalTimestamp, Guid activity, long replyStart, long errors)
    {
        c.CountCompleted(kind, arrivalTimestamp);
        if (activity != Guid.Empty)
        {
            EndCommandEvent(c, kind, activity, replyStart, errors);
        }
    }

    /// <summary>
    /// The parsed command's CommandStart under a new activity id, the thread's until
    /// <see cref="ServerEventSource.Leave"/>: the one place its payload is made (the dispatcher's
    /// commands and <see cref="SetBatch"/>'s).
    /// </summary>
    internal static Guid BeginCommandEvent(CommandContext c, CommandKind kind, long arrivalTimestamp, out Guid previous)
    {
        long keyHash = CommandTable.HasKey(kind) && c.Request.Count > 1 ? KeyHash(c.Request.Span(1)) : 0;
        return ServerEventSource.Log.BeginCommand(
            (int)kind, keyHash, c.Request.ArgumentBytes, c.ConnectionId, arrivalTimestamp, CommandTable.Names[(int)kind], c.ClientName, out previous);
    }

    /// <summary>The command's CommandStop: the reply bytes written since <paramref name="replyStart"/>, an error if <see cref="CommandContext.Errors"/> moved since <paramref name="errors"/>.</summary>
    internal static void EndCommandEvent(CommandContext c, CommandKind kind, Guid activity, long replyStart, long errors)
    {
        // A flush inside the command (large replies) makes this an undercount; it is a hint, not a meter.
        int replyBytes = (int)Math.Max(0, c.Output.UnflushedBytes - replyStart);
        ServerEventSource.Log.EndCommand(activity, (int)kind, c.Errors != errors ? 1 : 0, replyBytes);
    }

    /// <summary>The same keyHash the store's Get/Put/Delete events carry.</summary>
    internal static long KeyHash(ReadOnlySpan<byte> key) => TailDb.Diagnostics.KeyHash.Of(key);
}
