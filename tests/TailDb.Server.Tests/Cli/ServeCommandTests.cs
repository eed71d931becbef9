using System.CommandLine;
using TailDb.Server.Cli;
using TailDb.Server.Hosting;

namespace TailDb.Server.Tests.Cli;

public class ServeCommandTests
{
    private static ParseResult Parse(params string[] args) => ServeCommand.Create(args).Parse(args);

    [Fact]
    public void Socket_completions_run_inline_unless_the_thread_pool_is_asked_for()
    {
        Assert.Equal(SocketCompletions.Inline, Parse("--dir", "d").GetValue(ServeCommand.SocketCompletionsOption));
        Assert.Equal(SocketCompletions.ThreadPool, Parse("--dir", "d", "--socket-completions", "threadpool").GetValue(ServeCommand.SocketCompletionsOption));
    }

    [Fact]
    public void An_unknown_socket_completion_mode_is_a_parse_error()
    {
        Assert.NotEmpty(Parse("--dir", "d", "--socket-completions", "sometimes").Errors);
    }

    [Fact]
    public void Socket_threads_default_to_half_the_cores_and_at_least_one()
    {
        ServerOptions options = ServeCommand.Bind(Parse("--dir", "d"));

        Assert.Equal(Math.Max(1, Environment.ProcessorCount / 2), options.SocketThreads);
        Assert.Equal(3, ServeCommand.Bind(Parse("--dir", "d", "--socket-threads", "3")).SocketThreads);
    }

    [Theory]
    [InlineData("--socket-threads")]
    [InlineData("--warm-up")]
    [InlineData("--segment-mib")]
    public void A_negative_count_is_refused_as_bad_input_naming_its_flag(string flag)
    {
        ServerOptions options = ServeCommand.Bind(Parse("--dir", "d", flag, "-1"));

        var error = Assert.Throws<ServerException>(options.Validate);
        Assert.Equal(ExitCode.InvalidArguments, error.ExitCode);
        Assert.Contains(flag, error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void The_warm_up_is_on_by_default_and_zero_turns_it_off()
    {
        Assert.True(ServeCommand.Bind(Parse("--dir", "d")).WarmUpCommands > 0);
        Assert.Equal(0, ServeCommand.Bind(Parse("--dir", "d", "--warm-up", "0")).WarmUpCommands);
    }

    [Fact]
    public void A_warm_up_that_is_not_a_number_is_a_parse_error()
    {
        Assert.NotEmpty(Parse("--dir", "d", "--warm-up", "lots").Errors);
    }

    [Fact]
    public void The_segment_size_reaches_the_store_in_bytes_and_the_warm_ups_scratch_store_keeps_its_own()
    {
        ServerOptions options = ServeCommand.Bind(Parse("--dir", "d", "--segment-mib", "512"));

        Assert.Equal(512L << 20, options.StoreOptions.SegmentMaxBytes);
        Assert.NotEqual(512L << 20, ServerWarmUp.ScratchOptions(options, "scratch").StoreOptions.SegmentMaxBytes);
    }

    [Theory]
    [InlineData("0")]
    [InlineData("65537")]
    public void A_segment_size_outside_its_range_is_refused_naming_its_flag(string mib)
    {
        ServerOptions options = ServeCommand.Bind(Parse("--dir", "d", "--segment-mib", mib));

        var error = Assert.Throws<ServerException>(options.Validate);
        Assert.Equal(ExitCode.InvalidArguments, error.ExitCode);
        Assert.Contains("--segment-mib", error.Message, StringComparison.Ordinal);
    }
}
