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

    /// <summary>
    /// What the system call a kernel stack is inside works on, from its entry frame
    /// ("kernel!__x64_sys_pwrite64"; the innermost one, leaf first): files, sockets, or neither
    /// (futex, epoll_wait, mmap: the user frames below decide). read, write and their vector forms
    /// serve both, so a socket function above the entry (sock_*, tcp_*, unix_*...) makes them the network's.
    /// </summary>
    public static SystemCallKind SystemCallOf(IReadOnlyList<string> stack)
    {
        // A tick that lands in user mode on libc's wrapper, at the system call's own instruction
        // (entering or just back from the kernel), is that call's too.
        if (stack.Count > 0 && stack[0].StartsWith("libc.so", StringComparison.Ordinal) && stack[0].IndexOf('!') is > 0 and var bang)
        {
            var wrapper = stack[0][(bang + 1)..];
            return s_networkWrappers.Contains(wrapper) ? SystemCallKind.Network : s_fileWrappers.Contains(wrapper) ? SystemCallKind.File : SystemCallKind.None;
        }

        var socket = false;
        foreach (var frame in stack)
        {
            if (!frame.StartsWith(Kernel + "!", StringComparison.Ordinal))
            {
                break;
            }

            var symbol = frame.AsSpan(Kernel.Length + 1);
            socket |= symbol.StartsWith("sock_") || symbol.StartsWith("tcp_") || symbol.StartsWith("udp_")
                || symbol.StartsWith("unix_") || symbol.StartsWith("inet_");
            foreach (var entry in s_entries)
            {
                if (symbol.StartsWith(entry))
                {
                    var name = symbol[entry.Length..].ToString();
                    return s_network.Contains(name) ? SystemCallKind.Network
                        : s_readWrite.Contains(name) ? (socket ? SystemCallKind.Network : SystemCallKind.File)
                        : s_file.Contains(name) ? SystemCallKind.File
                        : SystemCallKind.Other;
                }
            }
        }

        return SystemCallKind.None;
    }

    // x86-64, arm64 and 32-bit entries, and the wrappers SYSCALL_DEFINE makes beside them.
    private static readonly string[] s_entries = ["__x64_sys_", "__arm64_sys_", "__ia32_sys_", "__se_sys_", "__do_sys_"];
    private static readonly HashSet<string> s_network = new(StringComparer.Ordinal)
    {
        "recvfrom", "sendto", "recvmsg", "sendmsg", "recvmmsg", "sendmmsg", "accept", "accept4", "connect", "socket",
        "shutdown", "getsockopt", "setsockopt", "bind", "listen", "getpeername", "getsockname",
    };

    private static readonly HashSet<string> s_networkWrappers = new(StringComparer.Ordinal)
    {
        "__libc_recv", "__recv", "recv", "__libc_send", "__send", "send", "__libc_recvfrom", "recvfrom", "__libc_sendto", "sendto",
        "__libc_recvmsg", "recvmsg", "__libc_sendmsg", "sendmsg",
    };

    private static readonly HashSet<string> s_fileWrappers = new(StringComparer.Ordinal)
    {
        "__libc_pread", "__libc_pread64", "pread64", "__libc_pwrite", "__libc_pwrite64", "pwrite64", "__libc_fsync", "fsync",
        "__libc_fdatasync", "fdatasync",
    };

    private static readonly HashSet<string> s_readWrite = new(StringComparer.Ordinal) { "read", "write", "readv", "writev" };
    private static readonly HashSet<string> s_file = new(StringComparer.Ordinal)
    {
        "pread64", "pwrite64", "preadv", "pwritev", "preadv2", "pwritev2", "fsync", "fdatasync", "sync_file_range", "openat",
        "openat2", "open", "fallocate", "ftruncate", "copy_file_range", "lseek", "newfstatat", "fstat", "statx", "unlinkat",
        "renameat2", "getdents64", "fadvise64", "msync",
    };

    /// <summary>A frame of a native module ("libc.so.6!memset", "libfoo.so+0x12"): it says where, not whose; deeper frames decide.</summary>
    public static bool IsNative(string frame)
    {
        var end = frame.IndexOfAny(['!', '+']);
        return end > 0 && frame.AsSpan(0, end).Contains(".so", StringComparison.Ordinal);
    }
}

/// <summary>What a sampled system call works on (<see cref="PerfFrames.SystemCallOf"/>).</summary>
internal enum SystemCallKind
{
    /// <summary>The stack is not inside a system call (user code, an interrupt, a fault).</summary>
    None,
    File,
    Network,

    /// <summary>Another call (futex, epoll_wait, mmap...): the user frames below it decide.</summary>
    Other,
}
