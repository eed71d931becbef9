using System.Buffers;
using System.Runtime.CompilerServices;
using TailDb.LoadTest.Injections;
using TailDb.LoadTest.Measurement;

namespace TailDb.LoadTest.Workloads;

/// <summary>
/// Sends one request to the store the way a request handler would, including the garbage such a
/// handler allocates (<see cref="WorkloadOptions.AppAllocBytes"/>). One per thread.
/// </summary>
public sealed class RequestExecutor
{
    // A handler's garbage lives until its response is written; keeping the last few requests'
    // garbage reachable makes some of it survive a gen0 GC, as in-flight requests' objects do.
    private const int InFlight = 64;
    private const int ChunkBytes = 1024;

    private readonly TailDbStore _store;
    private readonly WorkloadPlan _plan;
    private readonly WorkloadOptions _options;
    private readonly ArrayBufferWriter<byte> _buffer;
    private readonly object?[] _inFlight = new object?[InFlight];
    private readonly Injector? _injector;
    private readonly int _thread;
    private int _inFlightNext;

    /// <param name="injector">The --inject causes, entered inside every request; null when none.</param>
    /// <param name="thread">The load thread this executor serves.</param>
    public RequestExecutor(TailDbStore store, WorkloadPlan plan, WorkloadOptions options, Injector? injector = null, int thread = 0)
    {
        _store = store;
        _plan = plan;
        _options = options;
        _injector = injector;
        _thread = thread;
        _buffer = new ArrayBufferWriter<byte>(Math.Max(options.MaxValueBytes, 1));
    }

    /// <summary>Corrupt reads seen; the store reports them and the load test counts them.</summary>
    public long Corrupt { get; private set; }

    /// <summary>What the injections did inside the last <see cref="Execute"/> (for the truth file's request log).</summary>
    public RequestEffect LastEffect { get; private set; }

    /// <summary>Value bytes the last <see cref="Execute"/> read or wrote (the Request activity's Stop carries it).</summary>
    public int LastValueBytes { get; private set; }

    public OpKind Execute(in Operation operation)
    {
        LastValueBytes = 0;
        LastEffect = _injector?.OnRequest(_thread) ?? RequestEffect.None;
        AllocateLikeAHandler();
        byte[] key = _plan.Keys[operation.Key];
        switch (operation.Type)
        {
            case OperationType.Read when _options.Api == ReadApi.ZeroCopy:
                _buffer.ResetWrittenCount();
                ReadStatus status = _store.TryGet(key, _buffer);
                LastValueBytes = _buffer.WrittenCount;
                if (status == ReadStatus.Corrupt)
                {
                    Corrupt++;
                }

                return status switch
                {
                    ReadStatus.Hit => OpKind.GetHit,
                    ReadStatus.NotFound => OpKind.GetNotFound,
                    _ => OpKind.GetMiss,
                };
            case OperationType.Read:
                byte[]? value = _store.Get(key);
                LastValueBytes = value?.Length ?? 0;
                return value is null ? OpKind.GetNotFound : OpKind.GetFound;
            case OperationType.Write:
                LastValueBytes = operation.Large ? _options.LargeSize : _options.ValueSize;
                _store.Put(key, _plan.Values.AsSpan(0, LastValueBytes));
                return OpKind.Put;
            default:
                _store.Delete(key);
                return OpKind.Delete;
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private void AllocateLikeAHandler()
    {
        int remaining = _options.AppAllocBytes;
        if (remaining == 0)
        {
            return;
        }

        // Chunks linked into a list, so the garbage is a graph the GC must trace, not one array.
        object? head = null;
        while (remaining > 0)
        {
            int size = Math.Min(ChunkBytes, remaining);
            var chunk = new object?[Math.Max(1, size / IntPtr.Size - 4)];
            chunk[0] = head;
            head = chunk;
            remaining -= size;
        }

        _inFlight[_inFlightNext] = head;
        _inFlightNext = (_inFlightNext + 1) % InFlight;
    }
}
