namespace TailDb.Analyzer.Sources.Perf;

/// <summary>
/// perf's frames in the analyzer's spelling, "module!Namespace.Type.Method(args)" as TraceEvent
/// names managed frames, so the sample categories apply to both samplers:
/// - JIT code, named through the runtime's perf map: TraceEvent's parser gives the assembly as the
///   module and "Namespace.Type::Method(args)" (tier stripped) as the symbol;
/// - native code: "libcoreclr.so!symbol", or "libcoreclr.so+0x3a4523" where the module is
///   stripped (the runtime's own native code is, on this platform);
/// - ReadyToRun code of the framework (file-backed, so perf does not consult the perf map):
///   "System.Private.CoreLib.dll+0x5464b5";
/// - the kernel: "kernel!symbol".
/// </summary>
internal static class PerfFrames
{
    public const string Kernel = "kernel";

    public static string Name(string module, string symbol, string address)
    {
        if (module is "[kernel.kallsyms]" or "kernel.kallsyms")
        {
            return $"{Kernel}!{symbol}";
        }

        // A module path with parentheses of its own, "[unknown] (/memfd:doublemapper (deleted))" (JIT
        // code under W^X, which perf cannot name), reaches here split at the inner "(": module
        // "deleted)", symbol "[unknown] (/memfd:doublemapper". Anonymous code either way.
        if (symbol.StartsWith("[unknown] (", StringComparison.Ordinal))
        {
            return $"unresolved!0x{address}";
        }

        // TraceEvent turns an address the perf map lacks (a stub, code jitted after the map was read) into module "unknown", symbol the map's path.
        var unknown = symbol.Length == 0 || symbol == "[unknown]" || symbol == "unknown" || symbol == module || symbol.EndsWith(".map", StringComparison.Ordinal);
        if (unknown && (module.EndsWith(".map", StringComparison.Ordinal) || symbol.EndsWith(".map", StringComparison.Ordinal)))
        {
            return $"unresolved!0x{address}";
        }

        if (unknown)
        {
            return module is "[unknown]" or "unknown" or "" ? $"unresolved!0x{address}" : $"{module}+0x{address}";
        }

        var colons = symbol.IndexOf("::", StringComparison.Ordinal);
        if (colons > 0)
        {
            symbol = string.Concat(symbol.AsSpan(0, colons), ".", symbol.AsSpan(colons + 2));
        }

        return $"{module}!{symbol}";
    }

    /// <summary>
    /// Kernel functions a thread is in while the kernel faults pages in (zeroing or reading them) or
    /// takes them back (munmap, madvise): the cost of touching fresh memory and returning it.
    /// </summary>
    public static bool IsPageFault(string frame) =>
        frame.StartsWith("kernel!", StringComparison.Ordinal)
        && (frame.Contains("page_fault", StringComparison.Ordinal) || frame.EndsWith("!handle_mm_fault", StringComparison.Ordinal)
            || frame.EndsWith("!do_user_addr_fault", StringComparison.Ordinal) || frame.Contains("munmap", StringComparison.Ordinal)
            || frame.Contains("madvise", StringComparison.Ordinal));

    /// <summary>A frame of a native module ("libc.so.6!memset", "libfoo.so+0x12"): it says where, not whose; deeper frames decide.</summary>
    public static bool IsNative(string frame)
    {
        var end = frame.IndexOfAny(['!', '+']);
        return end > 0 && frame.AsSpan(0, end).Contains(".so", StringComparison.Ordinal);
    }
}
