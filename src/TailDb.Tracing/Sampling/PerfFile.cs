using System.Globalization;
using System.IO.Compression;

namespace TailDb.Tracing.Sampling;

/// <summary>
/// What perf recorded, as it travels with a trace: <c>FILE.perf.gz</c> beside <c>FILE.nettrace</c>,
/// the text of <c>perf script</c> (symbols resolved at record time, JIT frames through the
/// runtime's perf map), gzip-compressed, after one header line that TraceEvent's
/// LinuxPerfScriptEventParser skips as a comment:
/// <c># taildb-perf 1 pid=PID rate-hz=R clock=monotonic</c>, and <c> cut=damaged-record</c> when
/// perf script stopped early (see <see cref="PerfFileHeader.Cut"/>). PID is the traced process;
/// the rest of the machine is in the file too (scheduler events name who held a CPU). Times are
/// seconds of CLOCK_MONOTONIC, the clock EventPipe stamps its events with on Linux.
/// </summary>
public static class PerfFile
{
    public const string Magic = "# taildb-perf 1";

    public static string PathBeside(string tracePath) => Path.ChangeExtension(tracePath, null) + ".perf.gz";

    private const string CutAtDamagedRecord = "cut=damaged-record";

    public static string Header(int pid, int rateHz, bool cut = false) =>
        string.Create(CultureInfo.InvariantCulture, $"{Magic} pid={pid} rate-hz={rateHz} clock=monotonic{(cut ? " " + CutAtDamagedRecord : "")}\n");

    /// <summary>The header of a perf file, or null when <paramref name="path"/> is not one.</summary>
    public static PerfFileHeader? ReadHeader(string path)
    {
        try
        {
            using var stream = OpenText(path);
            string? line = stream.ReadLine();
            return line is not null ? ParseHeader(line) : null;
        }
        catch (Exception e) when (e is IOException or InvalidDataException or UnauthorizedAccessException)
        {
            return null;
        }
    }

    public static StreamReader OpenText(string path) =>
        new(new GZipStream(File.OpenRead(path), CompressionMode.Decompress), System.Text.Encoding.UTF8, detectEncodingFromByteOrderMarks: false, bufferSize: 1 << 16);

    public static Stream OpenRaw(string path) => new BufferedStream(new GZipStream(File.OpenRead(path), CompressionMode.Decompress), 1 << 16);

    internal static PerfFileHeader? ParseHeader(string line)
    {
        if (!line.StartsWith(Magic, StringComparison.Ordinal))
        {
            return null;
        }

        int pid = 0, rate = 0;
        bool cut = false;
        foreach (string part in line[Magic.Length..].Split(' ', StringSplitOptions.RemoveEmptyEntries))
        {
            var (key, value) = part.IndexOf('=') is var eq and > 0 ? (part[..eq], part[(eq + 1)..]) : (part, "");
            if (key == "pid")
            {
                _ = int.TryParse(value, NumberStyles.None, CultureInfo.InvariantCulture, out pid);
            }
            else if (key == "rate-hz")
            {
                _ = int.TryParse(value, NumberStyles.None, CultureInfo.InvariantCulture, out rate);
            }
            else if (part == CutAtDamagedRecord)
            {
                cut = true;
            }
        }

        return pid > 0 ? new PerfFileHeader(pid, rate) { Cut = cut } : null;
    }
}

public sealed record PerfFileHeader(int ProcessId, int RateHz)
{
    /// <summary>
    /// perf script stopped at a record it could not parse (a damaged sample in perf.data: "failed to
    /// process type: 9 [Bad address]"); the file holds every event before it, in time order, and
    /// none after, so the machine's view ends at the file's last event.
    /// </summary>
    public bool Cut { get; init; }
}
