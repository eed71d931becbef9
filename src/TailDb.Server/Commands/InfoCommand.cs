using System.Diagnostics;
using System.Globalization;
using System.Text;
using HdrHistogram;
using TailDb.Server.Hosting;
using TailDb.Server.Protocol;

namespace TailDb.Server.Commands;

/// <summary>
/// INFO [section ...]: server, clients, stats, commandstats, latencystats (per-command p50/p99/p99.9
/// in microseconds, from the moment a command's bytes were read to its reply being written),
/// replication (clients such as StackExchange.Redis look for role:master) and keyspace.
/// </summary>
public static class InfoCommand
{
    private static readonly string[] Sections = ["server", "clients", "stats", "replication", "commandstats", "latencystats", "keyspace"];

    public static ValueTask Execute(CommandContext c)
    {
        var wanted = new HashSet<string>(StringComparer.OrdinalIgnoreCase);
        for (int i = 1; i < c.Request.Count; i++)
        {
            wanted.Add(Encoding.UTF8.GetString(c.Request.Span(i)));
        }

        bool all = wanted.Count == 0 || wanted.Contains("all") || wanted.Contains("everything") || wanted.Contains("default");
        var text = new StringBuilder();
        foreach (string section in Sections)
        {
            if (all || wanted.Contains(section))
            {
                Append(text, section, c.Server);
            }
        }

        RespWriter.WriteBulk(c.Output, text.ToString());
        return default;
    }

    private static void Append(StringBuilder text, string section, ServerState s)
    {
        CultureInfo inv = CultureInfo.InvariantCulture;
        ServerStats stats = s.Stats;
        text.Append("# ").Append(char.ToUpperInvariant(section[0])).Append(section, 1, section.Length - 1).Append("\r\n");
        switch (section)
        {
            case "server":
                // Clients gate features on redis_version; TailDb speaks the RESP2 subset of Redis 7.
                text.Append("redis_version:7.0.0\r\n");
                text.Append(inv, $"taildb_version:{typeof(InfoCommand).Assembly.GetName().Version}\r\n");
                text.Append("redis_mode:standalone\r\n");
                text.Append(inv, $"os:{Environment.OSVersion}\r\narch_bits:64\r\n");
                text.Append(inv, $"process_id:{Environment.ProcessId}\r\ntcp_port:{s.Port}\r\n");
                text.Append(inv, $"uptime_in_seconds:{(long)(DateTime.UtcNow - s.StartedUtc).TotalSeconds}\r\n");
                text.Append(inv, $"gc_server:{(System.Runtime.GCSettings.IsServerGC ? 1 : 0)}\r\ngc_latency_mode:{System.Runtime.GCSettings.LatencyMode}\r\n");
                text.Append(inv, $"durability:{s.Options.Durability.ToString().ToLowerInvariant()}\r\n");
                break;
            case "clients":
                text.Append(inv, $"connected_clients:{Interlocked.Read(ref stats.ConnectedClients)}\r\nmaxclients:{s.Options.MaxClients}\r\n");
                break;
            case "stats":
                text.Append(inv, $"total_connections_received:{Interlocked.Read(ref stats.ConnectionsReceived)}\r\n");
                text.Append(inv, $"total_commands_processed:{stats.CommandsProcessed}\r\n");
                text.Append(inv, $"rejected_connections:{Interlocked.Read(ref stats.ConnectionsRejected)}\r\n");
                text.Append(inv, $"keyspace_hits:{stats.KeyspaceHits}\r\nkeyspace_misses:{stats.KeyspaceMisses}\r\n");
                text.Append(inv, $"total_error_replies_protocol:{Interlocked.Read(ref stats.ProtocolErrors)}\r\n");
                text.Append(inv, $"idle_clients_closed:{Interlocked.Read(ref stats.IdleClosed)}\r\n");
                text.Append(inv, $"gc_collections:{GC.CollectionCount(0)},{GC.CollectionCount(1)},{GC.CollectionCount(2)}\r\n");
                text.Append(inv, $"gc_pause_total_ms:{GC.GetTotalPauseDuration().TotalMilliseconds:F1}\r\n");
                break;
            case "replication":
                text.Append("role:master\r\nconnected_slaves:0\r\n");
                break;
            case "commandstats":
                ForEachCommand(stats, (name, h, sum) =>
                    text.Append(inv, $"cmdstat_{name}:calls={h.TotalCount},usec={sum / 1000},usec_per_call={sum / 1000.0 / h.TotalCount:F2}\r\n"));
                break;
            case "latencystats":
                ForEachCommand(stats, (name, h, _) =>
                    text.Append(inv, $"latency_percentiles_usec_{name}:p50={Usec(h.GetValueAtPercentile(50))},p99={Usec(h.GetValueAtPercentile(99))},p99.9={Usec(h.GetValueAtPercentile(99.9))}\r\n"));
                break;
            case "keyspace":
                text.Append(inv, $"db0:keys={s.Store.CountKeysSlow()},expires=0,avg_ttl=0\r\n");
                break;
            default:
                throw new UnreachableException(section);
        }

        text.Append("\r\n");
    }

    private static string Usec(long nanoseconds) => (nanoseconds / 1000.0).ToString("F3", CultureInfo.InvariantCulture);

    private static void ForEachCommand(ServerStats stats, Action<string, HistogramBase, long> action) =>
        stats.ForEachLatency((kind, h, sum) => action(CommandTable.Names[(int)kind], h, sum));
}
