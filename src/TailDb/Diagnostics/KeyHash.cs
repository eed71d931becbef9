using TailDb.Storage;

namespace TailDb.Diagnostics;

/// <summary>
/// The keyHash field of the store's Get/Put/Delete events (and the server's command events): the
/// key's CRC32C, the same checksum the records carry, so one key reads the same in every trace.
/// </summary>
public static class KeyHash
{
    public static long Of(ReadOnlySpan<byte> key) => Crc32C.Compute(key);
}
