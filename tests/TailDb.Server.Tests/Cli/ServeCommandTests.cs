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
}
