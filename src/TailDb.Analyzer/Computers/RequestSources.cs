using Microsoft.Diagnostics.Tracing;
using TailDb.Analyzer.Sources;
using TailDb.Analyzer.Traces;
using TailDb.Tracing;

namespace TailDb.Analyzer.Computers;

/// <summary>
/// Which requests a trace holds when the user did not say (<see cref="RequestSelection.Auto"/>): a
/// load test's trace has the load test's own Request activity around every store call, carrying the
/// request's arrival, and those are the requests whose latency the load test reports; a TailDb
/// server's trace (the load test's --target taildb-server) has the server's Command activity, each
/// with its arrival, around the store calls; any other trace has TailDb's Get/Put/Delete. A
/// .nettrace's metadata names every provider it holds events of (<see cref="EventMetadata.ReadProviders"/>);
/// other formats are probed by their events. The load test marks its fill phase before its first store
/// call, so a load-test event comes early in the file. Not necessarily first: EventPipe writes each
/// thread's buffer as it fills, so a file's event order is not time order. The probe therefore reads
/// on past the first TailDb events, up to <see cref="TailDbEventsWithoutLoadTest"/>, before it
/// decides there is no load test.
/// </summary>
internal static class RequestSources
{
    /// <summary>Past this many events without either provider, the trace is taken to have neither.</summary>
    private const long ProbeEvents = 2_000_000;

    /// <summary>TailDb events seen with no load-test event: many buffers' worth, so reordering cannot hide a load test.</summary>
    private const long TailDbEventsWithoutLoadTest = 100_000;

    /// <param name="framingChecked">The stack reader already walked the whole file; otherwise the framing is
    /// checked first, as the main pass would, since TraceEvent trusts a corrupt length enough to exhaust memory.</param>
    public static RequestSelection Resolve(string path, RequestSelection selection, TraceKind kind, bool framingChecked = false)
    {
        ArgumentNullException.ThrowIfNull(selection);
        if (!selection.Auto)
        {
            return selection;
        }

        if (kind == TraceKind.NetTrace && !framingChecked)
        {
            TraceStructure.Check(path);
        }

        var (loadTest, server) = Probe(path, kind);
        if (loadTest)
        {
            return RequestSelection.LoadTest with { ArrivalField = selection.ArrivalField };
        }

        return server ? RequestSelection.Server with { ArrivalField = selection.ArrivalField } : selection;
    }

    private static (bool LoadTest, bool Server) Probe(string path, TraceKind kind)
    {
        // A .nettrace names its providers in its metadata: a walk that seeks over the events, where
        // reading events took a second pass over most of the file (27% of `slowest`'s CPU on the CI's
        // 60 MB storm trace).
        if (EventMetadata.ReadProviders(path, kind) is { } providers)
        {
            return (providers.Contains(LoadTestEventContract.ProviderName), providers.Contains(ServerEventContract.ProviderName));
        }

        bool loadTest = false, server = false;
        long events = 0, storeEvents = 0;
        try
        {
            using var source = TraceFile.Open(path, kind);
            source.Dynamic.AddCallbackForProviderEvents(
                (provider, _) => IsEither(provider) ? EventFilterResponse.AcceptEvent : EventFilterResponse.RejectProvider,
                data =>
                {
                    // |=: StopProcessing lets the rest of the current block through, and a later
                    // TailDb event must not undo the answer (it did: the choice flipped between runs).
                    loadTest |= string.Equals(data.ProviderName, LoadTestEventContract.ProviderName, StringComparison.OrdinalIgnoreCase);
                    server |= string.Equals(data.ProviderName, ServerEventContract.ProviderName, StringComparison.OrdinalIgnoreCase);
                    if (loadTest || ++storeEvents > TailDbEventsWithoutLoadTest)
                    {
                        source.StopProcessing();
                    }
                });
            source.AllEvents += _ =>
            {
                if (++events > ProbeEvents)
                {
                    source.StopProcessing();
                }
            };
            source.Process();
        }
        catch (Exception e) when (TracePass.IsParserFailure(e) || e is AnalyzerException { ExitCode: ExitCode.BadTrace })
        {
            // A damaged or cut file (one that fails to open, too): the pass that follows reports it,
            // truncated or bad; the probe just keeps the default.
        }

        return (loadTest, server);
    }

    private static bool IsEither(string provider) =>
        string.Equals(provider, LoadTestEventContract.ProviderName, StringComparison.OrdinalIgnoreCase)
        || string.Equals(provider, ServerEventContract.ProviderName, StringComparison.OrdinalIgnoreCase)
        || string.Equals(provider, TailDbEventContract.ProviderName, StringComparison.OrdinalIgnoreCase);
}
