using System.Globalization;

namespace TailDb.LoadTest.Injections;

/// <summary>
/// Parses one --inject value: <c>gc:every=2s</c>, <c>lock:every=3s,hold=20ms</c>,
/// <c>sleep:every=5s,ms=15</c>, <c>alloc-burst:every=4s,mb=64</c>. A bad value is one message
/// naming what was wrong; past here an injection is typed, never a string.
/// </summary>
public static class InjectionParser
{
    public const string Usage = "gc:every=2s, lock:every=3s,hold=20ms, sleep:every=5s,ms=15, alloc-burst:every=4s,mb=64, cpu-hog:every=3s,ms=20 or page-faults:every=4s,mb=64";

    public static bool TryParse(string text, out Injection? injection, out string? problem)
    {
        injection = null;
        problem = null;
        int colon = text.IndexOf(':', StringComparison.Ordinal);
        string name = colon < 0 ? text : text[..colon];
        InjectionKind? kind = name.ToLowerInvariant() switch
        {
            "gc" => InjectionKind.Gc,
            "lock" => InjectionKind.Lock,
            "sleep" => InjectionKind.Sleep,
            "alloc-burst" => InjectionKind.AllocBurst,
            "cpu-hog" => InjectionKind.CpuHog,
            "page-faults" => InjectionKind.PageFaults,
            _ => null,
        };
        if (kind is null)
        {
            problem = $"--inject: unknown cause '{name}' in '{text}' (one of {Usage})";
            return false;
        }

        var settings = new Dictionary<string, string>(StringComparer.OrdinalIgnoreCase);
        foreach (string part in colon < 0 ? [] : text[(colon + 1)..].Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries))
        {
            int equals = part.IndexOf('=', StringComparison.Ordinal);
            if (equals <= 0 || !settings.TryAdd(part[..equals], part[(equals + 1)..]))
            {
                problem = $"--inject: '{part}' in '{text}' is not a single name=value";
                return false;
            }
        }

        string[] allowed = kind switch
        {
            InjectionKind.Gc => ["every"],
            InjectionKind.Lock => ["every", "hold"],
            InjectionKind.Sleep or InjectionKind.CpuHog => ["every", "ms"],
            _ => ["every", "mb"],
        };
        if (settings.Keys.FirstOrDefault(k => !allowed.Contains(k, StringComparer.OrdinalIgnoreCase)) is { } unknown)
        {
            problem = $"--inject: {name} takes {string.Join(", ", allowed)}, not '{unknown}' (in '{text}')";
            return false;
        }

        if (!TryDuration(settings, "every", "s", 1, text, out double every, out problem))
        {
            return false;
        }

        switch (kind.Value)
        {
            case InjectionKind.Lock when TryDuration(settings, "hold", "ms", 20, text, out double hold, out problem):
                injection = new Injection(InjectionKind.Lock, every / 1000, hold);
                return true;
            case InjectionKind.Sleep when TryDuration(settings, "ms", "ms", 15, text, out double ms, out problem):
                injection = new Injection(InjectionKind.Sleep, every / 1000, ms);
                return true;
            case InjectionKind.CpuHog when TryDuration(settings, "ms", "ms", 20, text, out double spin, out problem):
                injection = new Injection(InjectionKind.CpuHog, every / 1000, spin);
                return true;
            case InjectionKind.AllocBurst or InjectionKind.PageFaults when TryCount(settings, "mb", 64, text, out int mb, out problem):
                injection = new Injection(kind.Value, every / 1000, Megabytes: mb);
                return true;
            case InjectionKind.Gc:
                injection = new Injection(InjectionKind.Gc, every / 1000);
                return true;
            default:
                return false;
        }
    }

    /// <summary>A duration in milliseconds; the bare number is in <paramref name="defaultUnit"/>, else suffixed s or ms.</summary>
    private static bool TryDuration(Dictionary<string, string> settings, string key, string defaultUnit, double fallback, string text, out double milliseconds, out string? problem)
    {
        problem = null;
        if (!settings.TryGetValue(key, out string? value))
        {
            milliseconds = defaultUnit == "s" ? fallback * 1000 : fallback;
            return true;
        }

        (string number, double scale) = value.EndsWith("ms", StringComparison.OrdinalIgnoreCase) ? (value[..^2], 1.0)
            : value.EndsWith('s') ? (value[..^1], 1000.0)
            : (value, defaultUnit == "s" ? 1000.0 : 1.0);
        if (!double.TryParse(number, NumberStyles.Float, CultureInfo.InvariantCulture, out double parsed) || !(parsed > 0) || double.IsInfinity(parsed))
        {
            milliseconds = 0;
            problem = $"--inject: {key} must be a positive duration like 2s or 20ms (got '{value}' in '{text}')";
            return false;
        }

        milliseconds = parsed * scale;
        return true;
    }

    private static bool TryCount(Dictionary<string, string> settings, string key, int fallback, string text, out int count, out string? problem)
    {
        problem = null;
        count = fallback;
        if (settings.TryGetValue(key, out string? value)
            && (!int.TryParse(value, NumberStyles.None, CultureInfo.InvariantCulture, out count) || count < 1 || count > 16 * 1024))
        {
            problem = $"--inject: {key} must be a whole number of MiB from 1 to 16384 (got '{value}' in '{text}')";
            return false;
        }

        return true;
    }
}
