using System.Diagnostics;
using TailDb.Server.Protocol;

namespace TailDb.Server.Commands;

/// <summary>GET key: the store copies the value straight into the reply (nothing allocated on a cache hit).</summary>
public static class GetCommand
{
    public static ValueTask Execute(CommandContext c)
    {
        if (c.Request.Count != 2)
        {
            c.WrongArity(CommandKind.Get);
        }
        else if (c.Server.Options.ReadStall is { } stall && stall.WaitAt(Stopwatch.GetTimestamp()) is { Ticks: > 0 } wait)
        {
            return StalledAsync(c, wait);
        }
        else if (c.CheckKey(c.Request.Span(1)))
        {
            WriteValue(c, c.Request.Span(1));
        }

        return default;
    }

    /// <summary>--inject read-stall: the GET waits out the stall window without holding a thread; the connection's request bytes stay put until it returns.</summary>
    private static async ValueTask StalledAsync(CommandContext c, TimeSpan wait)
    {
        await Task.Delay(wait).ConfigureAwait(false);
        if (c.CheckKey(c.Request.Span(1)))
        {
            WriteValue(c, c.Request.Span(1));
        }
    }

    /// <summary>The bulk reply of one key's value, `$-1` if absent, an error if its record is corrupt or the device fails the read (GET and MGET).</summary>
    public static void WriteValue(CommandContext c, ReadOnlySpan<byte> key)
    {
        c.Bulk.Begin(c.Output);
        switch (c.Store.TryGet(key, c.Bulk))
        {
            case ReadStatus.Hit or ReadStatus.Miss:
                c.Hits++;
                break;
            case ReadStatus.NotFound:
                c.Misses++;
                c.Raw(RespWriter.NullBulk);
                break;
            case ReadStatus.IoError:
                c.Error("ERR the device failed this read (I/O error); the store stays up, retry may succeed");
                break;
            default:
                c.Error("ERR the key's latest record failed its checksum; its value is not returned");
                break;
        }
    }
}
