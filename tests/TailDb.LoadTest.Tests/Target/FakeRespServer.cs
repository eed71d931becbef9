using System.Net;
using System.Net.Sockets;
using System.Text;

namespace TailDb.LoadTest.Tests.Target;

/// <summary>
/// A RESP server whose misbehaviour a test chooses: <paramref name="reply"/> gets the connection's
/// index (in accept order, from 0) and the command's name, and returns the reply's bytes as text,
/// null to stay silent, or <see cref="Close"/> to close the connection without a reply. Understands
/// arrays of bulk strings, which is all the load test sends.
/// </summary>
internal sealed class FakeRespServer : IDisposable
{
    private readonly TcpListener _listener = new(IPAddress.Loopback, 0);
    private readonly Func<int, string, string?> _reply;
    private readonly List<Socket> _clients = [];
    private int _accepted;

    public FakeRespServer(Func<int, string, string?> reply)
    {
        _reply = reply;
        _listener.Start();
        new Thread(AcceptLoop) { IsBackground = true, Name = "fake-resp-accept" }.Start();
    }

    /// <summary>The load test's first pool connection: connection 0 is the PING it sends before the pool opens.</summary>
    public const int FirstPoolConnection = 1;

    /// <summary>The reply that closes the connection instead (a server restart, as the client sees it).</summary>
    public const string Close = "\0close";

    public int Port => ((IPEndPoint)_listener.LocalEndpoint).Port;

    /// <summary>Connections accepted so far.</summary>
    public int Accepted => Volatile.Read(ref _accepted);

    /// <summary>What a well-behaved server would answer.</summary>
    public static string? Normal(string command) => command switch
    {
        "PING" => "+PONG\r\n",
        "GET" => "$-1\r\n",
        "SET" => "+OK\r\n",
        "DEL" => ":1\r\n",
        "INFO" => "$0\r\n\r\n",
        _ => "-ERR unknown command\r\n",
    };

    /// <summary>Refuses new connections from now on (a server that went away and did not come back).</summary>
    public void StopAccepting() => _listener.Stop();

    public void Dispose()
    {
        _listener.Stop();
        lock (_clients)
        {
            foreach (Socket client in _clients)
            {
                client.Dispose();
            }
        }
    }

    private void AcceptLoop()
    {
        try
        {
            while (true)
            {
                Socket client = _listener.AcceptSocket();
                int index = Interlocked.Increment(ref _accepted) - 1;
                lock (_clients)
                {
                    _clients.Add(client);
                }

                new Thread(() => Serve(client, index)) { IsBackground = true, Name = $"fake-resp-{index}" }.Start();
            }
        }
        catch (SocketException)
        {
            // Stopped.
        }
        catch (ObjectDisposedException)
        {
            // Stopped.
        }
    }

    private void Serve(Socket client, int index)
    {
        var pending = new List<byte>();
        var buffer = new byte[64 * 1024];
        try
        {
            while (true)
            {
                int n = client.Receive(buffer);
                if (n == 0)
                {
                    return;
                }

                pending.AddRange(buffer.AsSpan(0, n));
                while (TryTakeCommand(pending, out string? command))
                {
                    string? reply = _reply(index, command!);
                    if (reply == Close)
                    {
                        client.Dispose();
                        return;
                    }

                    if (reply is not null)
                    {
                        client.Send(Encoding.ASCII.GetBytes(reply));
                    }
                }
            }
        }
        catch (Exception e) when (e is SocketException or ObjectDisposedException)
        {
            // The client or the test went away.
        }
    }

    /// <summary>Removes one complete command from the front of <paramref name="pending"/> and returns its name.</summary>
    private static bool TryTakeCommand(List<byte> pending, out string? command)
    {
        command = null;
        byte[] bytes = [.. pending];
        int position = 0;
        if (!TryLine(bytes, ref position, out string? header) || header![0] != '*')
        {
            return false;
        }

        int count = int.Parse(header.AsSpan(1), System.Globalization.CultureInfo.InvariantCulture);
        for (int i = 0; i < count; i++)
        {
            if (!TryLine(bytes, ref position, out string? length))
            {
                return false;
            }

            int size = int.Parse(length.AsSpan(1), System.Globalization.CultureInfo.InvariantCulture);
            if (bytes.Length < position + size + 2)
            {
                return false;
            }

            if (i == 0)
            {
                command = Encoding.ASCII.GetString(bytes, position, size).ToUpperInvariant();
            }

            position += size + 2;
        }

        pending.RemoveRange(0, position);
        return true;
    }

    private static bool TryLine(byte[] bytes, ref int position, out string? line)
    {
        int newline = Array.IndexOf(bytes, (byte)'\n', position);
        if (newline < 0)
        {
            line = null;
            return false;
        }

        line = Encoding.ASCII.GetString(bytes, position, newline - 1 - position);
        position = newline + 1;
        return true;
    }
}
