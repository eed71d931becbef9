using System.Net.Sockets;
using System.Text;
using Xunit.Abstractions;

namespace TailDb.Server.Tests.Hosting;

/// <summary>
/// Seeded random and mutated frames, one connection each. Afterwards the server answers PING on a
/// fresh connection, every connection it accepted has closed, its managed heap has not grown
/// without bound, and the acknowledged values written before the fuzzing are unchanged.
/// TAILDB_FUZZ_FRAMES=N runs more (default 1,000).
/// </summary>
public class ProtocolFuzzTests(ITestOutputHelper output)
{
    private static readonly int Frames = int.TryParse(Environment.GetEnvironmentVariable("TAILDB_FUZZ_FRAMES"), out int n) ? n : 1000;

    [Fact]
    public async Task A_thousand_seeded_bad_frames_leave_the_server_answering_and_acknowledged_values_intact()
    {
        await using var server = TestServer.Start(o => o with { MaxPendingBytes = 1 << 20, MaxValueBytes = 64 << 10 });
        using (var setup = new RawClient(server.Port))
        {
            for (int i = 0; i < 100; i++)
            {
                setup.SendCommand("SET", $"ack:{i}", $"value-{i}");
                Assert.Equal("+OK", setup.ReadReply());
            }
        }

        long heapBefore = GC.GetTotalMemory(forceFullCollection: true);
        var random = new Random(20261123);
        var kinds = new Dictionary<string, int>();
        for (int i = 0; i < Frames; i++)
        {
            (string kind, byte[] frame) = FuzzFrame(random);
            kinds[kind] = kinds.GetValueOrDefault(kind) + 1;
            using var client = new RawClient(server.Port, receiveTimeoutMs: 10_000);
            try
            {
                client.Send(frame);
                // Half-close: whatever the server still waits for will never come, so it must finish and close.
                client.Socket.Shutdown(SocketShutdown.Send);
                client.ReadToEnd();
            }
            catch (SocketException e) when (e.SocketErrorCode == SocketError.ConnectionReset)
            {
                // Closed by the server after a protocol error while we were still sending: fine.
            }
        }

        using (var fresh = new RawClient(server.Port))
        {
            fresh.SendCommand("PING");
            Assert.Equal("+PONG", fresh.ReadReply());
            for (int i = 0; i < 100; i++)
            {
                fresh.SendCommand("GET", $"ack:{i}");
                Assert.Equal($"value-{i}", fresh.ReadReply());
            }
        }

        await WaitFor(() => server.Server.State.Stats.ConnectedClients == 0, "every fuzz connection closed");
        long heapAfter = GC.GetTotalMemory(forceFullCollection: true);
        output.WriteLine($"{Frames:N0} fuzz frames ({string.Join(", ", kinds.OrderBy(k => k.Key, StringComparer.Ordinal).Select(k => $"{k.Key} {k.Value}"))}): "
            + $"{server.Server.State.Stats.ProtocolErrors:N0} protocol errors, heap {(heapAfter - heapBefore) / 1024.0:N0} KiB larger, 100 of 100 acknowledged values unchanged, PING answered");
        Assert.True(heapAfter - heapBefore < 32 << 20, $"heap grew by {(heapAfter - heapBefore) >> 20} MiB over {Frames} fuzz frames");
        Assert.True(kinds.Count >= 8, "every kind of mutation ran: " + string.Join(", ", kinds.Select(k => $"{k.Key}={k.Value}")));
        Assert.True(server.Server.State.Stats.ProtocolErrors > Frames / 4, $"only {server.Server.State.Stats.ProtocolErrors} protocol errors");
    }

    private static (string Kind, byte[] Frame) FuzzFrame(Random random)
    {
        string key = "fuzz:" + random.Next(1000);
        byte[] valid = RawClient.Command("SET", key, new string('v', random.Next(0, 200)));
        switch (random.Next(10))
        {
            case 0:
                return ("wrong-bulk-length", Encoding.ASCII.GetBytes($"*3\r\n$3\r\nSET\r\n${random.Next(0, 40)}\r\n{key}\r\n$1\r\nx\r\n"));
            case 1:
                return ("negative-count", Encoding.ASCII.GetBytes($"*{-random.Next(2, 1_000_000)}\r\n$4\r\nPING\r\n"));
            case 2:
                return ("huge-count", Encoding.ASCII.GetBytes($"*{random.NextInt64(1 << 20, long.MaxValue)}\r\n$3\r\nGET\r\n"));
            case 3:
                return ("huge-bulk", Encoding.ASCII.GetBytes($"*2\r\n$3\r\nGET\r\n${random.NextInt64(1 << 20, long.MaxValue)}\r\nab"));
            case 4:
                return ("negative-bulk", Encoding.ASCII.GetBytes($"*2\r\n$3\r\nGET\r\n$-{random.Next(2, 100)}\r\n"));
            case 5:
                return ("truncated", valid[..random.Next(1, valid.Length)]);
            case 6:
            {
                byte[] garbage = new byte[random.Next(1, 4096)];
                random.NextBytes(garbage);
                return ("binary-garbage", garbage);
            }

            case 7:
            {
                // An inline command that never ends: refused past the inline limit.
                byte[] inline = Encoding.ASCII.GetBytes("SET " + new string('a', random.Next(1000, 100_000)));
                return ("unterminated-inline", inline);
            }

            case 8:
            {
                byte[] flipped = (byte[])valid.Clone();
                for (int j = random.Next(1, 4); j > 0; j--)
                {
                    flipped[random.Next(flipped.Length)] = (byte)random.Next(256);
                }

                return ("bit-flips", flipped);
            }

            default:
                return ("over-pending-limit", Encoding.ASCII.GetBytes($"*{random.Next(2, 4)}\r\n$3\r\nSET\r\n$65536\r\n" + new string('k', random.Next(0, 1000))));
        }
    }

    private static async Task WaitFor(Func<bool> condition, string what)
    {
        for (int i = 0; i < 200 && !condition(); i++)
        {
            await Task.Delay(50);
        }

        Assert.True(condition(), what);
    }
}
