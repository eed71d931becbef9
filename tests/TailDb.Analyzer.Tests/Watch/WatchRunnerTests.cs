using TailDb.Analyzer.Computers;
using TailDb.Analyzer.Sources;
using TailDb.Analyzer.Watch;
using TailDb.Tracing.Recording;

namespace TailDb.Analyzer.Tests.Watch;

public sealed class WatchRunnerTests
{
    [Fact]
    public void SourcesWithTheirOwnActivityIdsLeaveTplOffAndAnyOtherSourceGetsItsIdsFromTpl()
    {
        Assert.Equal(ActivityIdSource.Own, WatchRunner.ActivityIds(RequestSelection.TailDb));
        Assert.Equal(ActivityIdSource.Own, WatchRunner.ActivityIds(RequestSelection.Default));
        Assert.Equal(ActivityIdSource.Own, WatchRunner.ActivityIds(RequestSelection.LoadTest));
        Assert.Equal(ActivityIdSource.TaskFlow, WatchRunner.ActivityIds(new RequestSelection("Microsoft.AspNetCore.Hosting", ["Request"])));
        Assert.Equal(ActivityIdSource.TaskFlow, WatchRunner.ActivityIds(RequestSelection.Server));
    }
}
