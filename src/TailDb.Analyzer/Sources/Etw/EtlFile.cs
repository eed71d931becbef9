using System.IO.Compression;
using Microsoft.Win32.SafeHandles;

namespace TailDb.Analyzer.Sources.Etw;

/// <summary>
/// The .etl bytes, read at random offsets (the reader merges per-processor buffers, so it reads out
/// of file order). A PerfView .etl.zip is unpacked once to a temporary .etl that is deleted on
/// dispose; memory stays bounded by a few buffers whatever the trace's size.
/// </summary>
internal sealed class EtlFile : IDisposable
{
    private readonly string? _temporary;

    private EtlFile(string path, SafeFileHandle handle, string? temporary)
    {
        Path = path;
        Handle = handle;
        Length = RandomAccess.GetLength(handle);
        _temporary = temporary;
    }

    /// <summary>The file the user named (the .etl or the .etl.zip).</summary>
    public string Path { get; }

    public SafeFileHandle Handle { get; }

    public long Length { get; }

    public static bool IsZip(string path) => path.EndsWith(".zip", StringComparison.OrdinalIgnoreCase);

    public static EtlFile Open(string path)
    {
        if (!IsZip(path))
        {
            return new EtlFile(path, File.OpenHandle(path, FileMode.Open, FileAccess.Read, FileShare.Read | FileShare.Delete), null);
        }

        // PerfView's zip holds the merged .etl and sometimes LogFile.txt (and symbol folders): the one .etl is the trace.
        using var zip = ZipFile.OpenRead(path);
        var etls = zip.Entries.Where(e => e.FullName.EndsWith(".etl", StringComparison.OrdinalIgnoreCase)).ToList();
        if (etls.Count != 1)
        {
            throw new EtlFormatException(etls.Count == 0
                ? $"{path} holds no .etl file"
                : $"{path} holds {etls.Count} .etl files ({string.Join(", ", etls.Select(e => e.FullName))}); PerfView's zip holds one merged .etl");
        }

        var temporary = System.IO.Path.Combine(System.IO.Path.GetTempPath(), $"taildb-{Guid.NewGuid():N}.etl");
        try
        {
            etls[0].ExtractToFile(temporary);
            return new EtlFile(path, File.OpenHandle(temporary, FileMode.Open, FileAccess.Read, FileShare.Read | FileShare.Delete, FileOptions.DeleteOnClose), temporary);
        }
        catch
        {
            File.Delete(temporary);
            throw;
        }
    }

    public void Dispose()
    {
        Handle.Dispose();
        if (_temporary is not null)
        {
            File.Delete(_temporary);
        }
    }
}
