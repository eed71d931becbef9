using System.Globalization;

namespace TailDb.LoadTest.Target;

/// <summary>What the load test drives.</summary>
public enum TargetKind
{
    /// <summary>The store inside the worker process, called directly (the default).</summary>
    InProcess,

    /// <summary>Any RESP server at a host and port (TailDb's, redis-server, Garnet).</summary>
    Endpoint,

    /// <summary>A TailDb server the harness starts itself, under each --gc mode, on a free loopback port.</summary>
    TailDbServer,
}

/// <summary>One --target value: in-process, taildb-server, or redis://HOST:PORT.</summary>
public sealed record TargetAddress(TargetKind Kind, string Host = "", int Port = 0)
{
    public const int DefaultRedisPort = 6379;

    public static readonly TargetAddress InProcess = new(TargetKind.InProcess);
    public static readonly TargetAddress TailDbServer = new(TargetKind.TailDbServer);

    public bool Networked => Kind != TargetKind.InProcess;

    /// <summary>The spelling the report uses: "in-process", "taildb-server", "redis://host:port".</summary>
    public string Name => Kind switch
    {
        TargetKind.InProcess => "in-process",
        TargetKind.TailDbServer => "taildb-server",
        _ => string.Create(CultureInfo.InvariantCulture, $"redis://{(Host.Contains(':', StringComparison.Ordinal) ? $"[{Host}]" : Host)}:{Port}"),
    };

    /// <summary>The <see cref="Name"/>: what --help shows as the default and what a message quotes, not the record's fields.</summary>
    public override string ToString() => Name;

    /// <summary>The address of a started server: the taildb-server target once it listens.</summary>
    public TargetAddress At(string host, int port) => this with { Host = host, Port = port };

    /// <summary>Parses one value; on failure <paramref name="problem"/> says why in one line.</summary>
    public static bool TryParse(string value, out TargetAddress? target, out string? problem)
    {
        target = null;
        problem = null;
        string text = value.Trim();
        if (text.Equals("in-process", StringComparison.OrdinalIgnoreCase))
        {
            target = InProcess;
            return true;
        }

        if (text.Equals("taildb-server", StringComparison.OrdinalIgnoreCase))
        {
            target = TailDbServer;
            return true;
        }

        if (!text.StartsWith("redis://", StringComparison.OrdinalIgnoreCase)
            || !Uri.TryCreate(text, UriKind.Absolute, out Uri? uri) || uri.Host.Length == 0)
        {
            problem = $"--target must be in-process, taildb-server or redis://HOST:PORT (got '{value}')";
            return false;
        }

        if (uri.UserInfo.Length > 0)
        {
            problem = $"--target {value}: user and password are not supported (the load test sends no AUTH)";
            return false;
        }

        if (uri.AbsolutePath is not ("/" or "" or "/0") || uri.Query.Length > 0)
        {
            problem = $"--target {value}: only database 0 and no options are supported";
            return false;
        }

        target = new TargetAddress(TargetKind.Endpoint, uri.Host.Trim('[', ']'), uri.IsDefaultPort || uri.Port < 0 ? DefaultRedisPort : uri.Port);
        return true;
    }
}
