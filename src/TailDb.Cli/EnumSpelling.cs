namespace TailDb.Cli;

/// <summary>How an enum value is spelled on a command line: its name in lower case (what users type and help shows).</summary>
public static class EnumSpelling
{
    public static string Spell<T>(T value)
        where T : struct, Enum => value.ToString().ToLowerInvariant();
}
