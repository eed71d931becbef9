using TailDb.Analyzer.Causes;
using TailDb.Analyzer.Computers;

namespace TailDb.Analyzer.Tests.Causes;

/// <summary>
/// The window bases every new cause builds on: a process-wide window covers any request it
/// overlaps, a per-thread window only requests on its thread, and a cause limited to one part of
/// a request (the earlier requests, queue only) never covers the other.
/// </summary>
public sealed class CauseBaseTests
{
    private static RequestRecord Request(int thread, double arrival, double start, double stop)
    {
        var request = new RequestRecord { ThreadId = thread, StartMSec = start, StopMSec = stop, QueueMSec = start - arrival, HasArrival = true };
        return request;
    }

    [Fact]
    public void A_process_wide_window_covers_a_request_on_any_thread()
    {
        var gc = new GcPauseCause("gen1 GC pauses", [(10, 20)]);
        Assert.Equal(5, gc.Measure(Request(1, 0, 0, 15), 0, RequestPart.Service, 0, 15), 9);
        Assert.Equal(5, gc.Measure(Request(2, 0, 0, 15), 0, RequestPart.Service, 0, 15), 9);
        Assert.Equal((CauseScope.Process, CauseUnit.Milliseconds, true, false), (gc.Scope, gc.Unit, gc.IsEventBased, gc.IsMeasurement));
    }

    [Fact]
    public void A_per_thread_window_covers_only_requests_on_its_thread()
    {
        var contention = new ContentionCause(new() { [1] = [(10, 20)] });
        Assert.Equal(5, contention.Measure(Request(1, 0, 0, 15), 0, RequestPart.Service, 0, 15), 9);
        Assert.Equal(0, contention.Measure(Request(2, 0, 0, 15), 0, RequestPart.Service, 0, 15));
        Assert.Equal(CauseScope.Thread, contention.Scope);
    }

    [Fact]
    public void Earlier_requests_count_in_the_queue_and_never_in_the_service()
    {
        var earlier = new EarlierRequestsCause(new() { [1] = [(0, 10), (10, 30)] });
        var request = Request(1, 5, 10, 30);
        Assert.Equal(5, earlier.Measure(request, 1, RequestPart.Queue, 5, 10), 9);
        Assert.Equal(0, earlier.Measure(request, 1, RequestPart.Service, 10, 30));
    }

    [Fact]
    public void Thread_events_are_counted_in_the_thread_they_were_thrown_on()
    {
        var thrown = new ExceptionsCause(new() { [1] = [12, 3, 14] });
        Assert.Equal(2, thrown.Measure(Request(1, 0, 10, 20), 0, RequestPart.Service, 10, 20));
        Assert.Equal(0, thrown.Measure(Request(2, 0, 10, 20), 0, RequestPart.Service, 10, 20));
        Assert.Equal(CauseUnit.Events, thrown.Unit);
    }

    [Fact]
    public void The_measurements_own_causes_say_so_and_samples_are_not_event_based()
    {
        Assert.True(new SamplerSuspensionCause([(0, 1)]).IsMeasurement);
        Assert.True(new SafePointWaitCause([(0, 1)], []).IsMeasurement);
        Assert.False(new RuntimeSuspensionCause("suspension for debugger", [(0, 1)]).IsMeasurement);
    }
}
