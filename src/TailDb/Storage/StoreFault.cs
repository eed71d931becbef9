using TailDb.Diagnostics;

namespace TailDb.Storage;

/// <summary>
/// The store's one-way faulted state: the first failed write or fsync sets it, every later write
/// throws <see cref="TailDbFaultedException"/>. Reads keep working (what is on disk is still valid).
/// </summary>
internal sealed class StoreFault(string directory)
{
    private volatile string? _reason;
    private readonly Lock _lock = new();
    private Exception? _cause;

    public bool IsFaulted => _reason is not null;

    public void ThrowIfFaulted()
    {
        if (_reason is not null)
        {
            Throw();
        }
    }

    /// <summary>Records the first failure (later ones are consequences) and returns the exception to throw.</summary>
    public TailDbFaultedException Fault(string operation, Exception cause)
    {
        bool first = false;
        lock (_lock)
        {
            if (_reason is null)
            {
                _cause = cause;
                _reason = $"{operation} failed: {cause.Message}";
                first = true;
            }
        }

        if (first && TailDbEventSource.Log.IsEnabled())
        {
            TailDbEventSource.Log.StoreFaulted(_reason!);
        }

        return Create();
    }

    /// <summary>What <see cref="TailDbFaultedException"/> says, or null while not faulted (status-returning writes report it).</summary>
    public string? Message => _reason is null ? null : $"The TailDb store at '{directory}' is faulted and accepts no more writes ({_reason}); reopen it to recover.";

    private TailDbFaultedException Create() => new(Message!, _cause);

    private void Throw() => throw Create();
}
