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

    private static SchedulerModelBuilder Machine()
    {
        var builder = new SchedulerModelBuilder(Pid);
        builder.Saw(Pid, Load, "load-0");
        builder.Saw(999, Hog, "taildb-cpu-hog");
        builder.Saw(998, Build, "csc");
        return builder;
    }
}
