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
    public void With_the_pauses_known_a_GC_firing_counts_only_the_time_a_pause_held_the_request()
    {
        var log = new RequestLog(threads: 1, capacityPerThread: 8);
        log.Add(0, Ms(100), Ms(100), Ms(110), RequestEffect.None); // in the window, before the pause: the OS ran it late
        log.Add(0, Ms(120), Ms(120), Ms(131), RequestEffect.None); // held by the pause from 125 to 130

        // An allocation burst's window of 50 ms holding one 5 ms pause, and a pause outside it.
        TruthFile truth = TruthFile.Build(
            [new Injection(InjectionKind.AllocBurst, 4, Megabytes: 64)], [new InjectionWindow(0, Ms(100), Ms(150), -1, PausedMs: 5)], log,
            [new GcPauseTimes(Ms(50), Ms(60)), new GcPauseTimes(Ms(125), Ms(130))]);

        AffectedRequest only = Assert.Single(truth.Requests);
        Assert.Equal(Ms(120), only.Arrival);
        Assert.Equal(5, only.InjectedMs, precision: 3);
    }

    [Fact]
    public void A_request_queued_behind_a_held_one_is_charged_only_the_pause_that_fell_while_it_waited()
    {
        var log = new RequestLog(threads: 1, capacityPerThread: 8);
        log.Add(0, Ms(100), Ms(100), Ms(120), RequestEffect.None);   // inside the 20 ms pause
        log.Add(0, Ms(110), Ms(120), Ms(121), RequestEffect.None);   // due at 110, in the pause's last 10 ms
        log.Add(0, Ms(120.5), Ms(121), Ms(140), RequestEffect.None); // due after the pause; its thread then had no CPU for 19 ms: not the GC's
        log.Add(0, Ms(130), Ms(140), Ms(141), RequestEffect.None);   // queued behind that one: not the GC's either

        TruthFile truth = TruthFile.Build([Gc], [new InjectionWindow(0, Ms(100), Ms(120), -1, PausedMs: 20)], log, [new GcPauseTimes(Ms(100), Ms(120))]);

        Assert.Equal([Ms(100), Ms(110)], truth.Requests.Select(r => r.Arrival));
        Assert.Equal([20, 10], truth.Requests.Select(r => Math.Round(r.InjectedMs, 3)));
    }

    [Fact]
    public void A_request_queued_behind_a_sleep_is_charged_the_sleep_left_when_it_arrived_not_the_wait_for_a_CPU_after_it()
    {
        var sleep = new Injection(InjectionKind.Sleep, 5, HoldMilliseconds: 15);
        var log = new RequestLog(threads: 1, capacityPerThread: 8);
        log.Add(0, Ms(100), Ms(100), Ms(115), RequestEffect.Slept);
        log.Add(0, Ms(111), Ms(126), Ms(127), RequestEffect.None); // 4 ms of the sleep left, then 11 ms with no CPU

        TruthFile truth = TruthFile.Build([sleep], [new InjectionWindow(0, Ms(100), Ms(115), 0)], log);

        Assert.Equal([15, 4], truth.Requests.Select(r => Math.Round(r.InjectedMs, 3)));
        Assert.Equal([false, true], truth.Requests.Select(r => r.Queued));
    }

    [Fact]
    public void A_sleep_holds_no_longer_than_it_asked_to_when_its_thread_then_waited_for_a_CPU()
    {
        // A 15 ms sleep whose window lasted 28 ms: the thread woke at 115 and was not run until 128.
        var sleep = new Injection(InjectionKind.Sleep, 5, HoldMilliseconds: 15);
        var log = new RequestLog(threads: 1, capacityPerThread: 8);
        log.Add(0, Ms(100), Ms(100), Ms(128), RequestEffect.Slept);
        log.Add(0, Ms(104), Ms(128), Ms(129), RequestEffect.None);

        TruthFile truth = TruthFile.Build([sleep], [new InjectionWindow(0, Ms(100), Ms(128), 0)], log);

        Assert.Equal([15, 11], truth.Requests.Select(r => Math.Round(r.InjectedMs, 3)));
    }

    [Fact]
    public void A_GC_pause_inside_a_fault_burst_is_the_pause_s_time_not_the_burst_s()
    {
        // The faulting loop is managed code: a gen1 pause from 150 to 200 stopped it, and its queue with it.
        var faults = new Injection(InjectionKind.PageFaults, 4, Megabytes: 64);
        var log = new RequestLog(threads: 1, capacityPerThread: 8);
        log.Add(0, Ms(100), Ms(100), Ms(250), RequestEffect.Faulted);
        log.Add(0, Ms(140), Ms(250), Ms(251), RequestEffect.None);

        TruthFile truth = TruthFile.Build([faults], [new InjectionWindow(0, Ms(100), Ms(250), 0)], log, [new GcPauseTimes(Ms(150), Ms(200))]);

        Assert.Equal([100, 60], truth.Requests.Select(r => Math.Round(r.InjectedMs, 3)));
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
