using System.Runtime.CompilerServices;
using TailDb.LoadTest.FanOut;
using TailDb.TestSupport.Skipping;

namespace TailDb.LoadTest.Tests.FanOut;

/// <summary>A test that needs twemproxy (`nutcracker` on PATH): skipped, naming the package and the script that installs it, when it is not.</summary>
public sealed class NutcrackerFactAttribute : FactAttribute
{
    public NutcrackerFactAttribute([CallerMemberName] string member = "", [CallerFilePath] string file = "")
        : this(Twemproxy.Find() is not null, member, file)
    {
    }

    internal NutcrackerFactAttribute(bool present, string member, string file)
    {
        if (!present)
        {
            Skip = Twemproxy.Missing;
            DisplayName = SkipNotice.DisplayName(Skip, member, file);
        }
    }
}

public sealed class NutcrackerFactSkipTests
{
    [Fact]
    public void Without_nutcracker_the_skipped_tests_name_says_so_and_which_script_installs_it()
    {
        var fact = new NutcrackerFactAttribute(present: false, "Routes", "/checkout/tests/FanOut/TwemproxyTests.cs");
        Assert.Equal($"TwemproxyTests.Routes — {fact.Skip}", fact.DisplayName);
        Assert.Contains("apt-get install -y nutcracker", fact.Skip, StringComparison.Ordinal);
        Assert.Empty(SkipNotice.MissingScripts(fact.Skip!));
    }
}
