using System.Text;
using System.Threading.Channels;

namespace TailDb.Tracing.Sampling;

/// <summary>
/// What perf record says on stderr, read as it comes: the files a ring's dumps went to (perf names
/// each in a line <c>[ perf record: Dump PATH ]</c>, written once the file is whole) and the rest of
/// the text for error messages, of which only the last few KiB are kept (a watch runs for days).
/// </summary>
internal sealed class PerfOutput
{
    private const string DumpPrefix = "[ perf record: Dump ";
    private const int KeptChars = 4096;

    private readonly Channel<string> _dumps = Channel.CreateUnbounded<string>(new UnboundedChannelOptions { SingleWriter = true });
    private readonly StringBuilder _text = new();
    private readonly Task _reading;

    public PerfOutput(StreamReader stderr) => _reading = Task.Run(() => ReadAsync(stderr));

    /// <summary>perf's messages so far, trimmed (the last <see cref="KeptChars"/> characters).</summary>
    public string Text
    {
        get
        {
            lock (_text)
            {
                return _text.ToString().Trim();
            }
        }
    }

    /// <summary>The next dump's file, whole.</summary>
    /// <exception cref="ChannelClosedException">perf exited first.</exception>
    public ValueTask<string> NextDumpAsync(CancellationToken cancellationToken) => _dumps.Reader.ReadAsync(cancellationToken);

    /// <summary>A dump nobody waited for any more (its waiter timed out), so the next waiter does not take it for its own.</summary>
    public bool TryTakeStaleDump(out string path) => _dumps.Reader.TryRead(out path!);

    /// <summary>
    /// Everything perf said, once it closed stderr (it has exited), or what it said within
    /// <paramref name="limit"/>: a process perf started (a ring's guard) that outlived it holds
    /// the pipe open too.
    /// </summary>
    public async Task<string> EndAsync(TimeSpan limit)
    {
        try
        {
            await _reading.WaitAsync(limit).ConfigureAwait(false);
        }
        catch (TimeoutException)
        {
            // What came so far.
        }

        return Text;
    }

    internal static string? DumpPath(string line) =>
        line.StartsWith(DumpPrefix, StringComparison.Ordinal) && line.EndsWith(" ]", StringComparison.Ordinal)
            ? line[DumpPrefix.Length..^2]
            : null;

    private async Task ReadAsync(StreamReader stderr)
    {
        try
        {
            while (await stderr.ReadLineAsync().ConfigureAwait(false) is { } line)
            {
                if (DumpPath(line) is { } path)
                {
                    _dumps.Writer.TryWrite(path);
                    continue;
                }

                lock (_text)
                {
                    _text.AppendLine(line);
                    if (_text.Length > KeptChars)
                    {
                        _text.Remove(0, _text.Length - KeptChars);
                    }
                }
            }
        }
        catch (Exception e) when (e is IOException or ObjectDisposedException)
        {
            // perf is gone; what it said is kept.
        }
        finally
        {
            _dumps.Writer.TryComplete();
        }
    }
}
