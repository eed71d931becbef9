using System.Globalization;

namespace TailDb.Analyzer.Stacks;

/// <summary>How both readers spell a frame, so their stacks compare equal string for string.</summary>
internal static class FrameNames
{
    /// <summary>
    /// TraceEvent's spelling (TraceLog.GetFullName): type name, '.', method name, and the
    /// argument list cut from the runtime's signature at its first '(' (overloads stay apart).
    /// </summary>
    public static string Method(string methodNamespace, string methodName, string signature)
    {
        var parens = signature.IndexOf('(', StringComparison.Ordinal);
        return parens >= 0
            ? string.Concat(methodNamespace, ".", methodName, signature.AsSpan(parens))
            : string.Concat(methodNamespace, ".", methodName);
    }

    /// <summary>An address no method range covers: said as such, never guessed.</summary>
    public static string Unresolved(ulong address) =>
        "unresolved!0x" + address.ToString("x", CultureInfo.InvariantCulture);

    public static bool IsUnresolved(string frame) => frame.StartsWith("unresolved!", StringComparison.Ordinal);
}
