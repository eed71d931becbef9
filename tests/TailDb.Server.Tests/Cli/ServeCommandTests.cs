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
}
