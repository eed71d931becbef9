using System.Diagnostics;
using TailDb.LoadTest.Injections;

namespace TailDb.LoadTest.Tests.Injections;

/// <summary>Which requests the truth file counts against a firing, and for how much of their time.</summary>
public sealed class TruthFileTests
{
    private static readonly Injection Gc = new(InjectionKind.Gc, 2);
    private static readonly Injection Lock = new(InjectionKind.Lock, 3, HoldMilliseconds: 20);

    [Fact]
    public void A_lock_firing_counts_the_requests_that_waited_on_its_gate_and_not_those_it_merely_overlapped()
    {
        var log = new RequestLog(threads: 2, capacityPerThread: 8);
        log.Add(0, Ms(95), Ms(100), Ms(120), RequestEffect.WaitedOnGate);
        log.Add(1, Ms(60), Ms(130), Ms(131), RequestEffect.None); // in the window, but never on the gate: the OS ran it late

        TruthFile truth = TruthFile.Build([Lock], [new InjectionWindow(0, Ms(100), Ms(120), -1)], log);

        AffectedRequest only = Assert.Single(truth.Requests);
        Assert.Equal((0, Ms(95)), (only.Thread, only.Arrival));
        Assert.False(only.Queued);
        Assert.Equal(20, only.InjectedMs, precision: 3);
    }

    [Fact]
    public void A_GC_firing_accounts_for_no_more_of_a_request_than_the_GC_paused_the_process()
    {
        var log = new RequestLog(threads: 1, capacityPerThread: 8);
        log.Add(0, Ms(100), Ms(100), Ms(140), RequestEffect.None);

        // A GC.Collect call stretched to 40 ms on a starved machine, of which the GC paused 3 ms.
        TruthFile truth = TruthFile.Build([Gc], [new InjectionWindow(0, Ms(100), Ms(140), -1, PausedMs: 3)], log);

        AffectedRequest only = Assert.Single(truth.Requests);
        Assert.Equal(40, only.ResponseMs, precision: 3);
        Assert.Equal(3, only.InjectedMs, precision: 3);
    }

    [Fact]
    public void A_request_queued_behind_a_slowed_one_inherits_at_most_what_the_firing_cost_the_one_in_front()
    {
        var log = new RequestLog(threads: 1, capacityPerThread: 8);
        log.Add(0, Ms(100), Ms(100), Ms(120), RequestEffect.None);   // inside the 20 ms pause
        log.Add(0, Ms(110), Ms(120), Ms(121), RequestEffect.None);   // due at 110, waited 10 ms behind it (inside the window too)
        log.Add(0, Ms(100.5 + 20), Ms(121), Ms(122), RequestEffect.None); // due at 120.5, waited 0.5 ms behind the one in front
        log.Add(0, Ms(130), Ms(130), Ms(131), RequestEffect.None);   // arrived to an idle thread: not the firing's

        TruthFile truth = TruthFile.Build([Gc], [new InjectionWindow(0, Ms(100), Ms(120), -1, PausedMs: 20)], log);

        Assert.Equal([Ms(100), Ms(110), Ms(120.5)], truth.Requests.Select(r => r.Arrival));
        Assert.Equal([20, 10, 0.5], truth.Requests.Select(r => Math.Round(r.InjectedMs, 3)));
        Assert.Equal([false, false, true], truth.Requests.Select(r => r.Queued));
    }

    [Fact]
    public void A_sleep_counts_only_the_request_that_slept_and_those_queued_behind_it_on_its_thread()
    {
        var sleep = new Injection(InjectionKind.Sleep, 5, HoldMilliseconds: 15);
        var log = new RequestLog(threads: 1, capacityPerThread: 8);
        log.Add(0, Ms(99), Ms(99), Ms(100), RequestEffect.None);
        log.Add(0, Ms(100), Ms(100), Ms(115), RequestEffect.Slept);
        log.Add(0, Ms(105), Ms(115), Ms(116), RequestEffect.None);

        TruthFile truth = TruthFile.Build([sleep], [new InjectionWindow(0, Ms(100), Ms(115), 0)], log);

        Assert.Equal([Ms(100), Ms(105)], truth.Requests.Select(r => r.Arrival));
        Assert.Equal([15, 10], truth.Requests.Select(r => Math.Round(r.InjectedMs, 3)));
    }

    private static long Ms(double milliseconds) => (long)Math.Round(milliseconds * Stopwatch.Frequency / 1000.0);
}
