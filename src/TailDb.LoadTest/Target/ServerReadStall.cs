using System.Globalization;

namespace TailDb.LoadTest.Target;

/// <summary>
/// The TailDb server's own `--inject read-stall:every=…,ms=…` (its GETs stall on purpose in a window
/// of <paramref name="Milliseconds"/> opening every <paramref name="EveryMilliseconds"/>), as the
/// harness passes it to a server it starts. The server (TailDb.Server's Injections/ReadStall, not
/// referenced here: it brings ASP.NET Core) parses it and says so in one line when it is wrong.
/// </summary>
public sealed record ServerReadStall(double EveryMilliseconds, double Milliseconds)
{
    /// <summary>The server's command-line value.</summary>
    public string Spelled => string.Create(CultureInfo.InvariantCulture, $"read-stall:every={EveryMilliseconds}ms,ms={Milliseconds}");
}
