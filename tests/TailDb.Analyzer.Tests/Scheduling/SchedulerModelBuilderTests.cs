using TailDb.Analyzer.Scheduling;

namespace TailDb.Analyzer.Tests.Scheduling;

public sealed class SchedulerModelBuilderTests
{
    private const int Pid = 100;
    private const int Load = 101;
    private const int Hog = 201;
    private const int Build = 301;

    [Fact]
    public void A_preempted_thread_waits_behind_whoever_ran_on_its_own_cpu_not_the_busier_thread_on_the_other()
    {
        var builder = Machine();
        // CPU 1: the build runs all along. CPU 0: the load thread runs, the hog preempts it for 20 ms, the load thread runs again.
        builder.Switch(0, 1, 0, 'S', Build, "csc");
        builder.Switch(1, 0, 0, 'S', Load, "load-0");
        builder.Switch(10, 0, Load, 'R', Hog, "taildb-cpu-hog");
        builder.Switch(30, 0, Hog, 'S', Load, "load-0");
        builder.Switch(40, 1, Build, 'R', 0, "swapper/1");

        var spans = builder.Build(50).SpansOf(Load).ToArray();

        var runnable = Assert.Single(spans, s => s.State == RunState.Runnable);
        Assert.Equal((10.0, 30.0, Hog), (runnable.StartMSec, runnable.StopMSec, runnable.Holder));
    }

    [Fact]
    public void A_wait_behind_two_occupants_of_its_cpu_is_two_spans_each_naming_its_holder()
    {
        var builder = Machine();
        builder.Switch(1, 0, 0, 'S', Load, "load-0");
        builder.Switch(10, 0, Load, 'R', Hog, "taildb-cpu-hog");
        builder.Switch(14, 0, Hog, 'R', Build, "csc");
        builder.Switch(20, 0, Build, 'R', Load, "load-0");

        var runnable = builder.Build(30).SpansOf(Load).ToArray().Where(s => s.State == RunState.Runnable).ToArray();

        Assert.Equal([(10.0, 14.0, Hog), (14.0, 20.0, Build)], runnable.Select(s => (s.StartMSec, s.StopMSec, s.Holder)));
    }

    [Fact]
    public void A_woken_thread_waits_on_the_cpu_its_wakeup_targeted()
    {
        var builder = Machine();
        builder.Switch(0, 1, 0, 'S', Build, "csc");
        builder.Switch(1, 0, 0, 'S', Hog, "taildb-cpu-hog");
        builder.Switch(2, 1, Build, 'R', Load, "load-0");
        builder.Switch(3, 1, Load, 'S', Build, "csc");
        builder.Wakeup(5, Load, wakerThread: 0, targetCpu: 0);
        builder.Switch(25, 0, Hog, 'S', Load, "load-0");

        var spans = builder.Build(30).SpansOf(Load).ToArray();

        Assert.Contains(spans, s => s is { State: RunState.Sleeping, StartMSec: 3, StopMSec: 5 });
        var runnable = Assert.Single(spans, s => s.State == RunState.Runnable);
        Assert.Equal((5.0, 25.0, Hog), (runnable.StartMSec, runnable.StopMSec, runnable.Holder));
    }

    [Fact]
    public void A_stretch_its_own_cpu_was_idle_is_named_the_kernels_not_another_cpus_occupant()
    {
        var builder = Machine();
        builder.Switch(0, 1, 0, 'S', Build, "csc");
        builder.Switch(1, 0, 0, 'S', Load, "load-0");
        builder.Switch(10, 0, Load, 'R', Hog, "taildb-cpu-hog");
        builder.Switch(12, 0, Hog, 'S', 0, "swapper/0");
        builder.Switch(13, 0, 0, 'R', Load, "load-0");

        var runnable = builder.Build(20).SpansOf(Load).ToArray().Where(s => s.State == RunState.Runnable).ToArray();

        Assert.Equal([(10.0, 12.0, Hog), (12.0, 13.0, 0)], runnable.Select(s => (s.StartMSec, s.StopMSec, s.Holder)));
    }

    [Fact]
    public void A_thread_seen_running_after_an_unrecorded_switch_in_is_asleep_only_until_its_cpu_last_named_another_thread()
    {
        // As perf recorded it on this machine: the load thread sleeps to the idle task, the switch
        // back and the wake-up are missing, and the thread is next seen in its own samples, then
        // switching out 40 ms later. Taken as recorded, those 40 ms of faulting read as sleep.
        var builder = Machine();
        builder.Switch(0, 0, 0, 'S', Load, "load-0");
        builder.Switch(1, 0, Load, 'S', 0, "swapper/0");
        builder.Current(4, 0, 0);
        builder.Current(5, 0, Load);
        builder.Current(6, 0, Load);
        builder.Switch(45, 0, Load, 'S', 0, "swapper/0");

        var model = builder.Build(50);

        Assert.Equal(
            [(0.0, 1.0, RunState.Running), (1.0, 4.0, RunState.Sleeping), (4.0, 5.0, RunState.Unrecorded), (5.0, 45.0, RunState.Running), (45.0, 50.0, RunState.Sleeping)],
            model.SpansOf(Load).ToArray().Select(s => (s.StartMSec, s.StopMSec, s.State)));
        Assert.Equal(1, model.UnrecordedSwitchIns);
    }

    [Fact]
    public void A_thread_woken_but_never_seen_switched_in_waits_for_a_cpu_only_until_the_cpu_last_ran_another()
    {
        var builder = Machine();
        builder.Switch(0, 0, 0, 'S', Load, "load-0");
        builder.Switch(1, 0, Load, 'S', Hog, "taildb-cpu-hog");
        builder.Wakeup(3, Load, wakerThread: 0, targetCpu: 0);
        builder.Current(8, 0, Hog);
        builder.Current(9, 0, Load);
        builder.Switch(12, 0, Load, 'S', Hog, "taildb-cpu-hog");

        var spans = builder.Build(20).SpansOf(Load).ToArray();

        var runnable = Assert.Single(spans, s => s.State == RunState.Runnable);
        Assert.Equal((3.0, 8.0, Hog), (runnable.StartMSec, runnable.StopMSec, runnable.Holder));
        Assert.Contains(spans, s => s is { State: RunState.Running, StartMSec: 9, StopMSec: 12 });
    }

    [Fact]
    public void A_long_sleep_on_an_idle_cpu_whose_end_was_not_recorded_stays_a_sleep_until_one_sampling_interval_before_the_thread_is_seen()
    {
        // An idle CPU is not sampled: its last event is the switch to idle 15 ms before. A thread
        // that runs is sampled every interval (1 ms here), so it was switched in within 1 ms of its first event.
        var builder = new SchedulerModelBuilder(Pid, sampleIntervalMSec: 1);
        builder.Saw(Pid, Load, "load-0");
        builder.Switch(0, 0, 0, 'S', Load, "load-0");
        builder.Switch(1, 0, Load, 'S', 0, "swapper/0");
        builder.Switch(16.3, 0, Load, 'S', 0, "swapper/0");

        var spans = builder.Build(20).SpansOf(Load).ToArray();

        Assert.Equal(
            [(1.0, 15.3, RunState.Sleeping), (15.3, 16.3, RunState.Unrecorded), (16.3, 20.0, RunState.Sleeping)],
            spans.Skip(1).Select(s => (Math.Round(s.StartMSec, 6), Math.Round(s.StopMSec, 6), s.State)));
    }

    [Fact]
    public void Events_that_agree_with_the_recorded_switches_change_nothing()
    {
        var builder = Machine();
        builder.Switch(0, 0, 0, 'S', Load, "load-0");
        builder.Current(2, 0, Load);
        builder.Switch(3, 0, Load, 'S', 0, "swapper/0");
        builder.Current(5, 0, 0);
        builder.Wakeup(6, Load, wakerThread: 0, targetCpu: 0);
        builder.Switch(7, 0, 0, 'R', Load, "load-0");

        var model = builder.Build(10);

        Assert.Equal(
            [(0.0, 3.0, RunState.Running), (3.0, 6.0, RunState.Sleeping), (6.0, 7.0, RunState.Runnable), (7.0, 10.0, RunState.Running)],
            model.SpansOf(Load).ToArray().Select(s => (s.StartMSec, s.StopMSec, s.State)));
        Assert.Equal(0, model.UnrecordedSwitchIns);
    }

    private static SchedulerModelBuilder Machine()
    {
        var builder = new SchedulerModelBuilder(Pid);
        builder.Saw(Pid, Load, "load-0");
        builder.Saw(999, Hog, "taildb-cpu-hog");
        builder.Saw(998, Build, "csc");
        return builder;
    }
}
