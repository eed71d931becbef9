using System.Globalization;
using System.Net;
using System.Net.Sockets;
using System.Text;

namespace TailDb.LoadTest.Target;

/// <summary>
/// The commands around a run, not in it: PING before the load, INFO for the server's GC figures,
/// SHUTDOWN for a server the harness started. One short-lived connection each; these allocate
/// freely, the measured path (<see cref="RespClientConnection"/>) does not.
/// </summary>
public static class RespControl
{
    /// <summary>Connects with a deadline; a refused or unresolvable address is a <see cref="LoadTestException"/> with <see cref="ExitCode.TargetUnreachable"/>.</summary>
    /// <remarks>
    /// Synchronous all the way: on Unix, a socket that has seen one async operation (ConnectAsync)
    /// or a non-blocking call runs every later synchronous Send/Receive through its async machinery,
    /// which allocates an operation object per call that has to wait (measured: ~175 B per request).
    /// </remarks>
    public static Socket Connect(TargetAddress target, int timeoutMilliseconds)
    {
        ArgumentNullException.ThrowIfNull(target);
        int wait = Math.Max(timeoutMilliseconds, 1000);
        Socket? socket = null;
        try
        {
            IPAddress address = IPAddress.TryParse(target.Host, out IPAddress? literal)
                ? literal
                : Dns.GetHostAddresses(target.Host).OrderBy(a => a.AddressFamily == AddressFamily.InterNetwork ? 0 : 1).First();
            socket = new Socket(address.AddressFamily, SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
            // A blocking connect on a pool thread, abandoned (and the socket closed) at the deadline:
            // a non-blocking connect would also switch the socket to the async machinery for good.
            Socket connecting = socket;
            Task connect = Task.Run(() => connecting.Connect(address, target.Port));
            if (!connect.Wait(wait))
            {
                throw new TimeoutException($"no answer within {wait} ms");
            }

            socket.SendTimeout = wait;
            return socket;
        }
        catch (Exception e) when (e is SocketException or TimeoutException or AggregateException { InnerException: SocketException })
        {
            socket?.Dispose();
            string why = e is AggregateException aggregate ? aggregate.InnerException!.Message : e.Message;
            throw new LoadTestException(ExitCode.TargetUnreachable, $"--target {target.Name}: cannot connect: {why}", e);
        }
    }

    /// <summary>Sends one command and returns its reply as text: "+PONG" as "PONG", a bulk string's content; an error reply is a <see cref="LoadTestException"/>.</summary>
    public static string Command(TargetAddress target, int timeoutMilliseconds, params string[] arguments)
    {
        ArgumentNullException.ThrowIfNull(target);
        ArgumentNullException.ThrowIfNull(arguments);
        using Socket socket = Connect(target, timeoutMilliseconds);
        socket.ReceiveTimeout = Math.Max(timeoutMilliseconds, 1000);
        var request = new StringBuilder().Append(CultureInfo.InvariantCulture, $"*{arguments.Length}\r\n");
        foreach (string argument in arguments)
        {
            request.Append(CultureInfo.InvariantCulture, $"${Encoding.UTF8.GetByteCount(argument)}\r\n{argument}\r\n");
        }

        try
        {
            socket.Send(Encoding.UTF8.GetBytes(request.ToString()));
            return ReadReply(socket, target, arguments[0]);
        }
        catch (SocketException e)
        {
            throw new LoadTestException(ExitCode.TargetFailed, $"--target {target.Name}: {arguments[0]} got no reply: {e.Message}", e);
        }
    }

    /// <summary>SHUTDOWN: the server closes the connection instead of answering, so no reply is fine.</summary>
    public static void Shutdown(TargetAddress target, int timeoutMilliseconds)
    {
        try
        {
            Command(target, timeoutMilliseconds, "SHUTDOWN");
        }
        catch (LoadTestException e) when (e.ExitCode == ExitCode.TargetFailed)
        {
            // Closed without a reply: shutting down.
        }
    }

    private static string ReadReply(Socket socket, TargetAddress target, string command)
    {
        var received = new List<byte>();
        var buffer = new byte[16 * 1024];
        while (true)
        {
            if (TryParse(received, out string? reply, out bool error))
            {
                return error
                    ? throw new LoadTestException(ExitCode.TargetFailed, $"--target {target.Name}: the server answered {command} with -{reply}")
                    : reply!;
            }

            int n = socket.Receive(buffer);
            if (n == 0)
            {
                throw new LoadTestException(ExitCode.TargetFailed, $"--target {target.Name}: the server closed the connection without answering {command}");
            }

            received.AddRange(buffer.AsSpan(0, n));
        }
    }

    private static bool TryParse(List<byte> received, out string? reply, out bool error)
    {
        reply = null;
        error = false;
        int newline = received.IndexOf((byte)'\n');
        if (newline < 0)
        {
            return false;
        }

        string line = Encoding.UTF8.GetString(received.GetRange(1, Math.Max(0, newline - 2)).ToArray());
        switch ((char)received[0])
        {
            case '$':
                if (!int.TryParse(line, NumberStyles.Integer, CultureInfo.InvariantCulture, out int length))
                {
                    error = true;
                    reply = $"protocol error: bad bulk length '{line}'";
                    return true;
                }

                if (length < 0)
                {
                    reply = "";
                    return true;
                }

                if (received.Count < newline + 1 + length + 2)
                {
                    return false;
                }

                reply = Encoding.UTF8.GetString(received.GetRange(newline + 1, length).ToArray());
                return true;
            case '-':
                error = true;
                reply = line;
                return true;
            default:
                reply = line;
                return true;
        }
    }
}
