using System.Collections.Concurrent;
using System.Diagnostics;
using System.Diagnostics.Tracing;
using TailDb.Server.Hosting;
using TailDb.Server.Tests.Diagnostics;

namespace TailDb.Server.Tests.Hosting;

/// <summary>
/// The warm-up a server runs before it listens: through the real command path, on a scratch
/// store that is gone afterwards, and silent in traces. One class: its tests run one at a time,
/// so the event test sees only its own warm-up's commands.
/// </summary>
[Collection(ServerEventsGroup.Name)]
public sealed class ServerWarmUpTests : IDisposable
{
    private readonly DirectoryInfo _root = Directory.CreateTempSubdirectory("taildb-warm-up-test-");

    public void Dispose() => _root.Delete(recursive: true);

    private ServerOptions Options(int commands) => new()
    {
        Directory = Path.Combine(_root.FullName, "data"),
        CacheCapacityBytes = 16 << 20,
        ExpectedKeyCount = 1024,
        WarmUpCommands = commands,
    };

    [Fact]
    public async Task Every_command_the_warm_up_sends_is_run_by_the_scratch_server()
    {
        WarmUpReport report = await ServerWarmUp.RunAsync(Options(ServerWarmUp.RoundCommands * 2), CancellationToken.None, _root.FullName);

        Assert.Equal(2, report.Rounds);
        Assert.Equal(2L * ServerWarmUp.RoundCommands, report.Sent);
        Assert.Equal(report.Sent, report.Served);
        Assert.True(report.MethodsCompiled >= 0);
    }

    [Theory]
    [InlineData(Transport.Sockets)]
    [InlineData(Transport.Kestrel)]
    public async Task A_server_whose_limits_are_below_the_warm_ups_commands_still_warms_on_its_own_transport(Transport transport)
    {
        ServerOptions options = Options(1) with { Transport = transport, MaxClients = 1, MaxValueBytes = 16, MaxMultibulkCount = 2, RequirePass = "secret" };

        WarmUpReport report = await ServerWarmUp.RunAsync(options, CancellationToken.None, _root.FullName);

        Assert.Equal(ServerWarmUp.RoundCommands, report.Sent);
        Assert.Equal(report.Sent, report.Served);
    }

    [Fact]
    public async Task The_warm_up_leaves_no_scratch_store_and_never_makes_the_servers_own_directory()
    {
        ServerOptions options = Options(1);

        WarmUpReport report = await ServerWarmUp.RunAsync(options, CancellationToken.None, _root.FullName);

        Assert.StartsWith(_root.FullName, report.Scratch, StringComparison.Ordinal);
        Assert.False(Directory.Exists(report.Scratch), report.Scratch);
        Assert.Empty(_root.GetFileSystemInfos());
        Assert.False(Directory.Exists(options.Directory));
    }

    [Fact]
    public async Task A_warm_up_whose_scratch_store_cannot_be_made_fails_in_one_line_with_its_exit_code()
    {
        string file = Path.Combine(_root.FullName, "a-file");
        await File.WriteAllTextAsync(file, "not a directory");

        var error = await Assert.ThrowsAsync<ServerException>(() => ServerWarmUp.RunAsync(Options(1), CancellationToken.None, file));

        Assert.Equal(ExitCode.WarmUpFailed, error.ExitCode);
        Assert.StartsWith("warm-up failed: ", error.Message, StringComparison.Ordinal);
        Assert.Contains("--warm-up 0", error.Message, StringComparison.Ordinal);
        Assert.DoesNotContain('\n', error.Message);
    }

    [Fact]
    public async Task The_warm_ups_commands_write_no_events_while_a_session_listens_though_the_same_commands_from_a_client_do()
    {
        using var listener = new EventRecorder();
        HashSet<long> keyHashes = [.. Enumerable.Range(0, ServerWarmUp.KeysPerRound).Select(i => KeyHash(ServerWarmUp.Key(i)))];

        await ServerWarmUp.RunAsync(Options(1), CancellationToken.None, _root.FullName);

        Assert.DoesNotContain(listener.Events, e => e.EventName == "CommandStart" && (string)e.Payload![6]! == ServerWarmUp.ClientName);
        Assert.DoesNotContain(listener.Events, e => e.EventName is "GetStart" or "PutStart" && keyHashes.Contains((long)e.Payload![1]!));

        // The control: a client's connection of the same name, SET of the same key, is seen.
        await using var server = TestServer.Start();
        using var client = new RawClient(server.Port);
        client.SendCommand("CLIENT", "SETNAME", ServerWarmUp.ClientName);
        client.ReadReply();
        client.SendCommand("SET", ServerWarmUp.Key(0), "v");
        Assert.Equal("+OK", client.ReadReply());
        Assert.Contains(listener.Events, e => e.EventName == "CommandStart" && (string)e.Payload![6]! == ServerWarmUp.ClientName);
        Assert.Contains(listener.Events, e => e.EventName == "PutStart" && (long)e.Payload![1]! == KeyHash(ServerWarmUp.Key(0)));
    }

    [Fact]
    public async Task A_server_started_with_the_default_warm_up_says_so_then_listens_with_an_empty_store_and_no_scratch_left()
    {
        string temp = Directory.CreateDirectory(Path.Combine(_root.FullName, "tmp")).FullName;
        var start = new ProcessStartInfo("dotnet") { RedirectStandardOutput = true, RedirectStandardError = true, RedirectStandardInput = true, UseShellExecute = false };
        foreach (string arg in new[] { "exec", Path.Combine(AppContext.BaseDirectory, "TailDb.Server.dll"), "--dir", Path.Combine(_root.FullName, "data"), "--port", "0", "--exit-with-stdin" })
        {
            start.ArgumentList.Add(arg);
        }

        // The scratch store goes under the temp directory: this test's own, to see it emptied.
        start.Environment["TMPDIR"] = temp;
        using var process = Process.Start(start)!;
        try
        {
            var lines = new List<string>();
            string? line;
            while ((line = await process.StandardOutput.ReadLineAsync().WaitAsync(TimeSpan.FromSeconds(60))) is not null)
            {
                lines.Add(line);
                if (line.Contains("listening on", StringComparison.Ordinal))
                {
                    break;
                }
            }

            Assert.True(line is not null, $"no listening line: {string.Join(" | ", lines)}");
            string warm = Assert.Single(lines, l => l.StartsWith("warm-up: ", StringComparison.Ordinal));
            int budget = new ServerOptions { Directory = "" }.WarmUpCommands;
            Assert.Contains($" in {(budget + ServerWarmUp.RoundCommands - 1) / ServerWarmUp.RoundCommands} rounds", warm, StringComparison.Ordinal);
            Assert.True(lines.IndexOf(warm) < lines.Count - 1, "the warm-up line comes before the listening line");
            int port = int.Parse(System.Text.RegularExpressions.Regex.Match(line!, @"listening on \S+:(\d+) ").Groups[1].Value, System.Globalization.CultureInfo.InvariantCulture);

            using var client = new RawClient(port);
            client.SendCommand("DBSIZE");
            Assert.Equal(":0", client.ReadReply());
            client.SendCommand("GET", ServerWarmUp.Key(0));
            Assert.Equal("(nil)", client.ReadReply());
            Assert.Empty(Directory.GetFileSystemEntries(temp, "taildb-warm-up-*"));
        }
        finally
        {
            process.StandardInput.Close();
            await process.WaitForExitAsync().WaitAsync(TimeSpan.FromSeconds(30));
        }

        Assert.Equal(0, process.ExitCode);
    }

    private static long KeyHash(string key) => TailDb.Server.Commands.CommandDispatcher.KeyHash(System.Text.Encoding.UTF8.GetBytes(key));
}
