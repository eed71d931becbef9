using TailDb.Analyzer.Computers;
using TailDb.Analyzer.Sources;
using TailDb.Analyzer.Tests.Stacks;
using TailDb.Analyzer.Traces;
using TailDb.Tracing;
using TailDb.Tracing.Recording;

namespace TailDb.Analyzer.Tests.Computers;

/// <summary>
/// Which requests a .nettrace holds, decided from the providers its metadata declares: the files
/// below declare events and hold none, so an answer other than the default can only have come
/// from the metadata (the event probe this replaced read most of a large file a second time).
/// </summary>
public sealed class RequestSourcesTests : IDisposable
{
    private readonly DirectoryInfo _directory = Directory.CreateTempSubdirectory("taildb-sources-");

    public void Dispose() => _directory.Delete(recursive: true);

    [Fact]
    public void A_trace_declaring_the_load_tests_provider_is_read_as_a_load_test_even_beside_the_server_and_the_store()
    {
        var path = Trace("load-test.nettrace", TailDbEventContract.ProviderName, ServerEventContract.ProviderName, LoadTestEventContract.ProviderName);

        var selection = RequestSources.Resolve(path, RequestSelection.Default, TraceKind.NetTrace);

        Assert.Equal(LoadTestEventContract.ProviderName, selection.Provider);
    }

    [Fact]
    public void A_trace_declaring_the_server_and_the_store_but_no_load_test_is_read_as_a_server()
    {
        var path = Trace("server.nettrace", TailDbEventContract.ProviderName, ServerEventContract.ProviderName);

        var selection = RequestSources.Resolve(path, RequestSelection.Default, TraceKind.NetTrace);

        Assert.Equal(ServerEventContract.ProviderName, selection.Provider);
    }

    [Fact]
    public void A_trace_declaring_only_the_store_keeps_the_stores_requests()
    {
        var path = Trace("store.nettrace", RecordingProviders.Runtime, TailDbEventContract.ProviderName);

        Assert.Same(RequestSelection.Default, RequestSources.Resolve(path, RequestSelection.Default, TraceKind.NetTrace));
        Assert.Equal([RecordingProviders.Runtime, TailDbEventContract.ProviderName], EventMetadata.ReadProviders(path, TraceKind.NetTrace)!.Order(StringComparer.Ordinal));
    }

    [Fact]
    public void Provider_names_match_as_EventSource_names_do_whatever_their_case()
    {
        var path = Trace("case.nettrace", LoadTestEventContract.ProviderName.ToUpperInvariant());

        Assert.Equal(LoadTestEventContract.ProviderName, RequestSources.Resolve(path, RequestSelection.Default, TraceKind.NetTrace).Provider);
    }

    [Fact]
    public void A_trace_without_a_parsable_metadata_record_names_no_providers_so_its_events_decide()
    {
        using var trace = new SyntheticNetTrace(8, compressedHeaders: true);
        var path = trace.Save(Path.Combine(_directory.FullName, "none.nettrace"));

        Assert.Null(EventMetadata.ReadProviders(path, TraceKind.NetTrace));
        Assert.Null(EventMetadata.ReadProviders(path, TraceKind.Etl));
    }

    private string Trace(string name, params string[] providers)
    {
        using var trace = new SyntheticNetTrace(8, compressedHeaders: true);
        for (var i = 0; i < providers.Length; i++)
        {
            trace.Metadata(i + 1, providers[i], eventId: 1, eventName: "Start");
        }

        return trace.Save(Path.Combine(_directory.FullName, name));
    }
}
