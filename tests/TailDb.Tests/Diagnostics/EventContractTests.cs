using System.Diagnostics.Tracing;
using System.Reflection;
using System.Xml.Linq;
using TailDb.Diagnostics;
using C = TailDb.Tracing.TailDbEventContract;

namespace TailDb.Tests.Diagnostics;

/// <summary>The analyzer knows TailDb only through TailDbEventContract: the manifest must say exactly the same.</summary>
public sealed class EventContractTests
{
    private static readonly XNamespace Ns = "http://schemas.microsoft.com/win/2004/08/events";
    private readonly XDocument _manifest = XDocument.Parse(EventSource.GenerateManifest(typeof(TailDbEventSource), "TailDb.dll")!);

    private static Dictionary<string, int> ContractIds() => typeof(C.EventIds)
        .GetFields(BindingFlags.Public | BindingFlags.Static)
        .ToDictionary(f => f.Name, f => (int)f.GetRawConstantValue()!);

    [Fact]
    public void ManifestUsesTheContractProviderName()
    {
        XElement provider = _manifest.Descendants(Ns + "provider").Single();
        Assert.Equal(C.ProviderName, (string)provider.Attribute("name")!);
        Assert.Equal(C.ProviderName, TailDbEventSource.Log.Name);
    }

    [Fact]
    public void ManifestEventsAreExactlyTheContractEventsWithTheirIds()
    {
        // Id 0 is EventSource's own EventSourceMessage.
        var manifest = _manifest.Descendants(Ns + "event").Where(e => (int)e.Attribute("value")! != 0)
            .ToDictionary(e => (string)e.Attribute("symbol")!, e => (int)e.Attribute("value")!);
        Assert.Equal(ContractIds().OrderBy(p => p.Key), manifest.OrderBy(p => p.Key));
    }

    [Fact]
    public void EveryContractActivityIsAStartStopPairOfItsTask()
    {
        Dictionary<string, int> ids = ContractIds();
        var events = _manifest.Descendants(Ns + "event").ToDictionary(e => (string)e.Attribute("symbol")!);
        foreach (string activity in new[] { C.Activities.Get, C.Activities.Put, C.Activities.Delete, C.Activities.FileRead, C.Activities.Fsync, C.Activities.Compaction, C.Activities.CacheEviction })
        {
            XElement start = events[activity + "Start"];
            XElement stop = events[activity + "Stop"];
            Assert.Equal(activity, (string)start.Attribute("task")!);
            // GenerateManifest without a live instance gives a Stop a task of its own name; a live
            // EventSource gives it its Start's task (RequestEventTests checks that at run time).
            Assert.Contains((string)stop.Attribute("task")!, new[] { activity, activity + "Stop" });
            Assert.Equal("win:Start", (string)start.Attribute("opcode")!);
            Assert.Equal("win:Stop", (string)stop.Attribute("opcode")!);
            Assert.Equal(ids[activity + "Start"] + 1, ids[activity + "Stop"]);
        }

        Assert.Equal([C.Activities.Get, C.Activities.Put, C.Activities.Delete], C.Activities.Requests);
        foreach (string name in new[] { C.Events.CorruptRecord, C.Events.StoreFaulted, C.Events.TailTruncated, C.Events.ReadFailed })
        {
            Assert.True(events.ContainsKey(name), name);
        }
    }

    [Fact]
    public void PayloadFieldNamesAreExactlyTheContractFields()
    {
        var contract = typeof(C.Fields).GetFields(BindingFlags.Public | BindingFlags.Static).Select(f => (string)f.GetRawConstantValue()!).ToHashSet();
        var manifest = _manifest.Descendants(Ns + "template").Where(t => (string)t.Attribute("tid")! != "EventSourceMessageArgs")
            .SelectMany(t => t.Elements(Ns + "data")).Select(d => (string)d.Attribute("name")!).ToHashSet();
        Assert.Equal(contract.Order(), manifest.Order());
    }

    [Fact]
    public void KeywordsMatchTheContract()
    {
        var keywords = _manifest.Descendants(Ns + "keyword").ToDictionary(k => (string)k.Attribute("name")!, k => Convert.ToInt64((string)k.Attribute("mask")!, 16));
        Assert.Equal(C.Keywords.Requests, keywords["Requests"]);
        Assert.Equal(C.Keywords.Storage, keywords["Storage"]);
        Assert.Equal(C.Keywords.Cache, keywords["Cache"]);
        Assert.Equal(C.Keywords.Upkeep, keywords["Upkeep"]);
    }
}
