using System.Text.RegularExpressions;

namespace TailDb.TestSupport.Skipping;

/// <summary>
/// The name a test skipped for a missing tool runs under. At `dotnet test`'s default verbosity the
/// console logger prints a skipped test as "Skipped NAME [1 ms]" and shows xunit's Skip reason only
/// at detailed verbosity, so the reason (the missing tool and the script that installs it) rides in
/// the name, where the README's own test command shows it. Filters still match: xunit keeps the
/// fully qualified name apart from the display name.
/// </summary>
public static class SkipNotice
{
    /// <summary>"Class.Method — reason", the class taken from the file that declares the test (the attribute's CallerFilePath).</summary>
    public static string DisplayName(string reason, string member, string declaringFile)
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(reason);
        string file = declaringFile.Replace('\\', '/');
        string type = Path.GetFileNameWithoutExtension(file[(file.LastIndexOf('/') + 1)..]);
        return $"{type}.{member} — {reason}";
    }

    /// <summary>The checkout's `.ci/*.sh` scripts a reason names that do not exist (a test checks there are none).</summary>
    public static IReadOnlyList<string> MissingScripts(string reason)
    {
        string root = AppContext.BaseDirectory;
        while (!File.Exists(Path.Combine(root, "TailDb.sln")))
        {
            root = Path.GetDirectoryName(root.TrimEnd(Path.DirectorySeparatorChar))
                ?? throw new InvalidOperationException($"no TailDb.sln above {AppContext.BaseDirectory}");
        }

        return Regex.Matches(reason, @"\.ci/[\w-]+\.sh").Select(m => m.Value)
            .Where(script => !File.Exists(Path.Combine(root, script))).ToList();
    }
}
