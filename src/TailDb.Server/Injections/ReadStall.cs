using System.Diagnostics;
using System.Globalization;

namespace TailDb.Server.Injections;

/// <summary>
/// --inject read-stall:every=2s,ms=40: a server whose reads sometimes stall, on purpose (off by
/// default). Stall windows of <see cref="Milliseconds"/> open every <see cref="EveryMilliseconds"/>
/// from the server's start; a GET that runs inside one waits, without holding a thread, until the
/// window closes, and is then served. The other commands and other connections go on; the stalled
/// connection's later commands wait behind its GET (RESP answers in order). What a client's timeout
/// and retries do against such a stall is the load test's `retries` scenario (docs/scenarios.md).
/// </summary>
public sealed record ReadStall(double EveryMilliseconds, double Milliseconds)
{
    public const string Usage = "read-stall:every=2s,ms=40";

    private readonly long _start = Stopwatch.GetTimestamp();

    /// <summary>As the command line spells it (so a parent can pass it on).</summary>
    public string Spelled => string.Create(CultureInfo.InvariantCulture, $"read-stall:every={EveryMilliseconds}ms,ms={Milliseconds}");

    /// <summary>How long a read at <paramref name="now"/> (a Stopwatch timestamp) must wait: the rest of the window it falls in, or zero.</summary>
    public TimeSpan WaitAt(long now) => WaitAfter((now - _start) * 1000.0 / Stopwatch.Frequency);

    /// <summary>How long a read <paramref name="elapsedMilliseconds"/> after the server's start must wait.</summary>
    public TimeSpan WaitAfter(double elapsedMilliseconds)
    {
        double into = elapsedMilliseconds % EveryMilliseconds;
        return into < Milliseconds ? TimeSpan.FromMilliseconds(Milliseconds - into) : TimeSpan.Zero;
    }

    /// <summary>Parses <c>read-stall:every=DURATION,ms=DURATION</c> (a bare number: every in seconds, ms in milliseconds); null with one line saying what was wrong.</summary>
    public static ReadStall? Parse(string text, out string? problem)
    {
        ArgumentNullException.ThrowIfNull(text);
        problem = null;
        int colon = text.IndexOf(':', StringComparison.Ordinal);
        string name = colon < 0 ? text : text[..colon];
        if (!string.Equals(name, "read-stall", StringComparison.OrdinalIgnoreCase))
        {
            problem = $"--inject: unknown cause '{name}' in '{text}' (the server injects {Usage})";
            return null;
        }

        var settings = new Dictionary<string, string>(StringComparer.OrdinalIgnoreCase);
        foreach (string part in colon < 0 ? [] : text[(colon + 1)..].Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries))
        {
            int equals = part.IndexOf('=', StringComparison.Ordinal);
            if (equals <= 0 || !settings.TryAdd(part[..equals], part[(equals + 1)..]))
            {
                problem = $"--inject: '{part}' in '{text}' is not a single name=value";
                return null;
            }
        }

        if (settings.Keys.FirstOrDefault(k => k is not ("every" or "ms")) is { } unknown)
        {
            problem = $"--inject: read-stall takes every and ms, not '{unknown}' (in '{text}')";
            return null;
        }

        if (!TryDuration(settings, "every", 1000, 2000, text, out double every, out problem)
            || !TryDuration(settings, "ms", 1, 40, text, out double stall, out problem))
        {
            return null;
        }

        if (stall >= every)
        {
            problem = $"--inject: a read stall of {stall} ms every {every} ms would never end (in '{text}')";
            return null;
        }

        return new ReadStall(every, stall);
    }

    private static bool TryDuration(Dictionary<string, string> settings, string key, double bareScale, double fallback, string text, out double milliseconds, out string? problem)
    {
        problem = null;
        milliseconds = fallback;
        if (!settings.TryGetValue(key, out string? value))
        {
            return true;
        }

        (string number, double scale) = value.EndsWith("ms", StringComparison.OrdinalIgnoreCase) ? (value[..^2], 1.0)
            : value.EndsWith('s') ? (value[..^1], 1000.0)
            : (value, bareScale);
        if (!double.TryParse(number, NumberStyles.Float, CultureInfo.InvariantCulture, out double parsed) || !(parsed > 0) || double.IsInfinity(parsed))
        {
            problem = $"--inject: {key} must be a positive duration like 2s or 40ms (got '{value}' in '{text}')";
            return false;
        }

        milliseconds = parsed * scale;
        return true;
    }
}
