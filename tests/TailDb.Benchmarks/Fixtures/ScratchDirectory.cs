namespace TailDb.Benchmarks.Fixtures;

/// <summary>A fresh directory under the temp folder, deleted with everything in it on dispose.</summary>
public sealed class ScratchDirectory : IDisposable
{
    public ScratchDirectory(string purpose)
    {
        Path = Directory.CreateTempSubdirectory($"taildb-bench-{purpose}-").FullName;
    }

    public string Path { get; }

    public string File(string name) => System.IO.Path.Combine(Path, name);

    public void Dispose()
    {
        if (Directory.Exists(Path))
        {
            Directory.Delete(Path, recursive: true);
        }
    }
}
