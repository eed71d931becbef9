using System.IO.Pipelines;
using System.Net;
using System.Text;
using TailDb.Server.Hosting;

namespace TailDb.Server.Tests.Hosting;

public class RespServerTests
{
    [Fact]
    public async Task A_malformed_frame_gets_a_protocol_error_and_closes_only_its_own_connection()
    {
        await using var server = TestServer.Start();
        using var good = new RawClient(server.Port);
        good.SendCommand("SET", "k", "v");
        Assert.Equal("+OK", good.ReadReply());

        using var bad = new RawClient(server.Port);
        bad.Send("*1\r\n+GET\r\n"u8.ToArray());
        Assert.Equal("-ERR Protocol error: expected '$', got '+'\r\n", System.Text.Encoding.ASCII.GetString(bad.ReadToEnd()));

        good.SendCommand("GET", "k");
        Assert.Equal("v", good.ReadReply());
    }

    [Fact]
    public async Task Unknown_commands_get_an_error_naming_them_and_the_connection_stays_open()
    {
        await using var server = TestServer.Start();
        using var client = new RawClient(server.Port);
        client.SendCommand("HGETALL", "h");
        Assert.StartsWith("-ERR unknown command 'HGETALL'", client.ReadReply(), StringComparison.Ordinal);
        client.SendCommand("PING");
        Assert.Equal("+PONG", client.ReadReply());
    }

    [Fact]
    public async Task Pipelined_commands_in_one_write_are_answered_in_order()
    {
        await using var server = TestServer.Start();
        using var client = new RawClient(server.Port);
        client.Send([.. RawClient.Command("SET", "a", "1"), .. RawClient.Command("GET", "a"), .. "PING\r\n"u8.ToArray(), .. RawClient.Command("DEL", "a", "b"), .. RawClient.Command("GET", "a")]);
        Assert.Equal(["+OK", "1", "+PONG", ":1", "(nil)"], Enumerable.Range(0, 5).Select(_ => client.ReadReply()));
    }

    [Fact]
    public async Task A_client_over_max_clients_is_told_so_and_closed()
    {
        await using var server = TestServer.Start(o => o with { MaxClients = 2 });
        using var one = new RawClient(server.Port);
        using var two = new RawClient(server.Port);
        one.SendCommand("PING");
        two.SendCommand("PING");
        Assert.Equal("+PONG", one.ReadReply());
        Assert.Equal("+PONG", two.ReadReply());
        using var three = new RawClient(server.Port);
        Assert.Equal("-ERR max number of clients reached\r\n", System.Text.Encoding.ASCII.GetString(three.ReadToEnd()));
    }

    [Fact]
    public async Task With_requirepass_commands_need_auth_first()
    {
        await using var server = TestServer.Start(o => o with { RequirePass = "s3cret" });
        using var client = new RawClient(server.Port);
        client.SendCommand("GET", "k");
        Assert.Equal("-NOAUTH Authentication required.", client.ReadReply());
        client.SendCommand("AUTH", "wrong");
        Assert.StartsWith("-WRONGPASS", client.ReadReply(), StringComparison.Ordinal);
        client.SendCommand("AUTH", "s3cret");
        Assert.Equal("+OK", client.ReadReply());
        client.SendCommand("GET", "k");
        Assert.Equal("(nil)", client.ReadReply());
    }

    [Fact]
    public void A_non_loopback_bind_without_a_password_is_refused_unless_unsafe_bind()
    {
        var options = new ServerOptions { Directory = "unused", Bind = IPAddress.Any };
        var e = Assert.Throws<ServerException>(options.Validate);
        Assert.Equal(ExitCode.UnsafeBind, e.ExitCode);
        (options with { RequirePass = "x" }).Validate();
        (options with { UnsafeBind = true }).Validate();
    }

    [Fact]
    public async Task A_new_connection_whose_client_has_already_sent_is_served_on_the_thread_that_hands_it_over()
    {
        // With inline socket completions that thread is the socket thread; the connection's first
        // reads used to go to a pool thread, where they raced the socket thread for the writer lock.
        await using var server = TestServer.Start();
        var input = new Pipe();
        var output = new Pipe();
        await input.Writer.WriteAsync("*1\r\n$4\r\nPING\r\n"u8.ToArray());

        // From a thread with no synchronization context, as a socket thread is (the test runner's
        // context would make any continuation queue rather than run inline).
        (Task served, bool answered, string reply) = await Task.Run(() =>
        {
            Task serving = server.Server.ServeAsync(input.Reader, output.Writer, () => { }, completed: null);

            // Answered before ServeAsync returned: nothing was left for another thread to run.
            bool read = output.Reader.TryRead(out ReadResult result);
            string text = read ? Encoding.ASCII.GetString(result.Buffer) : "";
            if (read)
            {
                output.Reader.AdvanceTo(result.Buffer.End);
            }

            return (serving, read, text);
        });

        Assert.True(answered);
        Assert.Equal("+PONG\r\n", reply);
        await input.Writer.CompleteAsync();
        await served.WaitAsync(TimeSpan.FromSeconds(30));
    }

    [Fact]
    public async Task An_idle_client_is_closed_after_the_idle_timeout()
    {
        await using var server = TestServer.Start(o => o with { IdleTimeoutSeconds = 1 });
        using var client = new RawClient(server.Port, receiveTimeoutMs: 10_000);
        Assert.Empty(client.ReadToEnd());
        Assert.Equal(1, server.Server.State.Stats.IdleClosed);
    }

    [Fact]
    public async Task Shutdown_closes_the_store_so_another_server_can_open_the_directory()
    {
        var first = TestServer.Start(o => o with { Durability = Durability.Fsync });
        using (var client = new RawClient(first.Port))
        {
            client.SendCommand("SET", "durable", "yes");
            Assert.Equal("+OK", client.ReadReply());
            client.SendCommand("SHUTDOWN");
            Assert.Empty(client.ReadToEnd());
        }

        await first.Server.Stopped.WaitAsync(TimeSpan.FromSeconds(30));
        await using var second = TestServer.Start(directory: first.Directory);
        using var reader = new RawClient(second.Port);
        reader.SendCommand("GET", "durable");
        Assert.Equal("yes", reader.ReadReply());
    }
}
