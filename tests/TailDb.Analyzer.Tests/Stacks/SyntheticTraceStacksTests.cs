using TailDb.Analyzer.Stacks;
using static TailDb.Analyzer.Tests.Stacks.SyntheticNetTrace;

namespace TailDb.Analyzer.Tests.Stacks;

/// <summary>
/// Hand-built traces with known answers: each address, stack id and method range is chosen so a
/// wrong rule names a wrong frame.
/// </summary>
public sealed class SyntheticTraceStacksTests : IDisposable
{
    private const int SampleMeta = 1;
    private const int LoadMeta = 2;
    private const int RundownMeta = 3;
    private const string TierA = "Ns.Type.A(int32)";
    private const string Main = "Ns.Program.Main(class System.String[])";

    private readonly string _directory = Directory.CreateTempSubdirectory("taildb-synthetic-").FullName;

    public static TheoryData<int, bool> Encodings => new() { { 8, true }, { 8, false }, { 4, true }, { 4, false } };

    [Theory]
    [MemberData(nameof(Encodings))]
    public void FramesAreNamedBySessionLoadsAndRundownAndNeverGuessed(int pointerSize, bool compressed)
    {
        var set = new NetTraceStackSampleReader().Read(Build(pointerSize, compressed));

        Assert.Equal(
            [
                (1.0, 11, $"{TierA} <- {Main}"),
                (2.0, 12, $"{TierA} <- {Main}"),
                (3.0, 11, $"unresolved!0x9999 <- {Main}"),
                (3.5, 12, ""),
                (4.0, 11, ""),
            ],
            set.Samples.Select(s => (s.TimeRelativeMSec, s.ThreadId, string.Join(" <- ", set.Stacks[s.StackId]))));
        Assert.Equal(1, set.UnresolvedFrames);
        Assert.All(set.Samples, s => Assert.True(s.Managed));
    }

    [Fact]
    public void BothTiersOfAReJittedMethodShareOneInternedStack()
    {
        var set = new NetTraceStackSampleReader().Read(Build(8, compressed: true));

        Assert.Equal(set.Samples[0].StackId, set.Samples[1].StackId);
        Assert.Equal(3, set.Stacks.Count);
    }

    [Fact]
    public void TraceLogOracleNamesTheSameFramesOnTheSyntheticTrace()
    {
        var path = Build(8, compressed: true);

        var oracle = new TraceLogStackSampleReader().Read(path);
        var fast = new NetTraceStackSampleReader().Read(path);

        Assert.Equal(
            oracle.Samples.Select(s => (s.TimeRelativeMSec, s.ThreadId, string.Join(" <- ", oracle.Stacks[s.StackId]))),
            fast.Samples.Select(s => (s.TimeRelativeMSec, s.ThreadId, string.Join(" <- ", fast.Stacks[s.StackId]))));
    }

    public void Dispose() => Directory.Delete(_directory, recursive: true);

    // Region 1: A is jitted twice (tier0 at 0x1000, tier1 at 0x2000); stack 1 is in tier0, stack 2 in
    // tier1, both called from Main (ReadyToRun code at 0x5000, named only by the rundown). The
    // tier1 sample comes first in file order but later in time.
    // Region 2 (after a sequence point): stack id 1 is reused for a different stack whose leaf,
    // 0x9999, only a non-jitted load covers (TraceLog does not name code from those); stack id 2
    // was only defined before the sequence point, so it means no stack now; one sample has no stack. Rundown: Main, a duplicate of tier1, and a method nothing sampled.
    private string Build(int pointerSize, bool compressed)
    {
        using var trace = new SyntheticNetTrace(pointerSize, compressed);
        trace
            .Metadata(SampleMeta, SampleProfilerProvider, 0, "ThreadSample")
            .Metadata(LoadMeta, RuntimeProvider, 143, "MethodLoadVerbose")
            .Metadata(RundownMeta, RundownProvider, 144, "MethodDCEndVerbose")
            .Stacks(1, [0x1010, 0x5010], [0x2010, 0x5010])
            .Events(
                Method(LoadMeta, 1_500, 0x1000, 0x100, jitted: true, "Ns.Type", "A", "void  (int32)"),
                Method(LoadMeta, 1_600, 0x2000, 0x100, jitted: true, "Ns.Type", "A", "void  (int32)"),
                Sample(SampleMeta, 12, 2, 3_000),
                Sample(SampleMeta, 11, 1, 2_000))
            .SequencePoint(3_500)
            .Stacks(1, [0x9999, 0x5010])
            .Events(
                Method(LoadMeta, 3_600, 0x9990, 0x20, jitted: false, "Ns.Type", "Restored", "void  ()"),
                Sample(SampleMeta, 11, 1, 4_000),
                Sample(SampleMeta, 12, 2, 4_500),
                Sample(SampleMeta, 11, 0, 5_000))
            .SequencePoint(6_000)
            .Events(
                Method(RundownMeta, 7_000, 0x5000, 0x100, jitted: false, "Ns.Program", "Main", "void  (class System.String[])"),
                Method(RundownMeta, 7_001, 0x2000, 0x100, jitted: true, "Ns.Type", "A", "void  (int32)"),
                Method(RundownMeta, 7_002, 0x7000, 0x100, jitted: false, "Ns.Other", "NeverSampled", "void  ()"));
        return trace.Save(Path.Combine(_directory, $"synthetic-{pointerSize}-{compressed}.nettrace"));
    }
}
