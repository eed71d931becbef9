using System.Runtime.CompilerServices;
using TailDb.TestSupport.Skipping;

namespace TailDb.Server.Tests.Hosting;

/// <summary>
/// A fact that needs redis-cli and redis-benchmark (Debian's redis-tools, which .ci/run installs
/// with apt when absent). Skipped, with the reason shown, only when they are not on PATH.
/// </summary>
public sealed class RedisToolsFactAttribute : FactAttribute
{
    public const string Absent = "redis-cli/redis-benchmark not on PATH: run .ci/server-tools.sh (apt-get install -y redis-tools; .ci/run does)";

    public RedisToolsFactAttribute([CallerMemberName] string member = "", [CallerFilePath] string file = "")
        : this(RedisTools.Find("redis-cli") is not null && RedisTools.Find("redis-benchmark") is not null, member, file)
    {
    }

    internal RedisToolsFactAttribute(bool present, string member, string file)
    {
        if (!present)
        {
            Skip = Absent;
            DisplayName = SkipNotice.DisplayName(Skip, member, file);
        }
    }
}
