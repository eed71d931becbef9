namespace TailDb.TestSupport.Processes;

/// <summary>
/// A test that stops a child with Ctrl-C (SIGINT) cannot work when this test process has SIGINT
/// ignored: a non-interactive shell starts a background job (`cmd &`) that way, every child
/// inherits it, and .NET keeps an ignored signal ignored. The child then never sees the signal and
/// the test would fail on its exit code, blaming the code under test.
/// </summary>
public static class InheritedSignals
{
    private const int SigInt = 2;

    /// <summary>Why a child of this process cannot be stopped with Ctrl-C, in one line; null when it can.</summary>
    public static string? WhySigIntIsNotDelivered() => IsIgnored(SigInt)
        ? "SIGINT is ignored in this test process (was it started in the background, with '&', by a non-interactive shell?): a child cannot be stopped with Ctrl-C here; run the tests in the foreground"
        : null;

    /// <summary>Reads the SigIgn mask from /proc/self/status (bit n-1 for signal n); false where there is no /proc.</summary>
    private static bool IsIgnored(int signal)
    {
        if (!File.Exists("/proc/self/status"))
        {
            return false;
        }

        string? line = File.ReadLines("/proc/self/status").FirstOrDefault(l => l.StartsWith("SigIgn:", StringComparison.Ordinal));
        return line is not null && (Convert.ToUInt64(line["SigIgn:".Length..].Trim(), 16) & (1UL << (signal - 1))) != 0;
    }
}
