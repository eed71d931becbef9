using System.Runtime.Serialization;
using TailDb.Analyzer.Traces;

namespace TailDb.Analyzer.Tests.Traces;

/// <summary>What counts as "not a readable trace" (exit 3) and what is a bug (exit 1, printed in full).</summary>
public sealed class TracePassTests
{
    public static TheoryData<Type> Bugs() =>
        [typeof(NullReferenceException), typeof(InvalidCastException), typeof(OutOfMemoryException), typeof(OperationCanceledException)];

    /// <summary>What TraceEvent throws on bad bytes; a bare <see cref="Exception"/> is its "Reading past end of event".</summary>
    public static TheoryData<Type> DamagedBytes() =>
        [typeof(EndOfStreamException), typeof(FormatException), typeof(SerializationException), typeof(IndexOutOfRangeException), typeof(Exception)];

    [Theory]
    [MemberData(nameof(Bugs))]
    public void BugsAreNotParserFailures(Type type) => Assert.False(TracePass.IsParserFailure((Exception)Activator.CreateInstance(type)!));

    [Fact]
    public void OurOwnUserFacingErrorIsNotAParserFailure() =>
        Assert.False(TracePass.IsParserFailure(new AnalyzerException(ExitCode.BadTrace, "not a trace")));

    [Theory]
    [MemberData(nameof(DamagedBytes))]
    public void ParserExceptionsOnDamagedBytesAreParserFailures(Type type) => Assert.True(TracePass.IsParserFailure((Exception)Activator.CreateInstance(type)!));

    [Fact]
    public void AnExceptionThrownByOurOwnCodeIsABugWhateverItsType()
    {
        try
        {
            throw new FormatException("our own parsing of a flag");
        }
        catch (FormatException e)
        {
            Assert.False(TracePass.IsParserFailure(e));
        }
    }
}
