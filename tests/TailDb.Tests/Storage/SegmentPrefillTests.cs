using System.Text;
using TailDb.Storage;

namespace TailDb.Tests.Storage;

/// <summary>
/// Once a segment is half written, a thread of its own fills the spare and each next one with zeros to the segment size, so
/// appends overwrite page-cache pages instead of allocating them under the writer lock. A crash
/// then leaves full-size files ending in zeros; recovery must read those zeros as unwritten (not
/// damage, nothing reported), and a record torn just before them as a torn tail.
/// </summary>
public sealed class SegmentPrefillTests : IDisposable
{
    private const long SegmentBytes = 16 * 1024;

    // Records of 16 + 6 + 990 bytes: 16 fill a segment (16,224 bytes sealed, short of its size), 9
    // write more than half of one, and 40 Puts rotate twice: segments 1 and 2 sealed, 3 active, 4
    // the spare.
    private const int RecordBytes = 16 + 6 + 990;
    private static readonly byte[] Value = Enumerable.Repeat((byte)'v', 990).ToArray();

    private readonly TestDirectory _dir = new();
    private readonly TestDirectory _image = new();

    public void Dispose()
    {
        _dir.Dispose();
        _image.Dispose();
    }

    private TailDbOptions Options(string directory) =>
        _dir.Options() with { Directory = directory, SegmentMaxBytes = SegmentBytes, CacheCapacityBytes = 0 };

    private static byte[] ValueOf(int version) => [.. Value[..^4], .. Encoding.ASCII.GetBytes(version.ToString("D4", System.Globalization.CultureInfo.InvariantCulture))];

    private static void Put(TailDbStore store, int count, int version = 0, int first = 0)
    {
        for (int k = first; k < count; k++)
        {
            store.Put($"key{k:D3}", ValueOf(version));
        }
    }

    /// <summary>Waits until <paramref name="condition"/> holds (the preparer works on its own thread); fails after 10 s.</summary>
    private static void Eventually(Func<bool> condition, string what) =>
        Assert.True(SpinWait.SpinUntil(condition, TimeSpan.FromSeconds(10)), $"not within 10 s: {what}");

    private string SegmentPath(int id) => Path.Combine(_dir.Path, $"{id:D8}-0000.seg");

    private bool Prefilled(int id) => File.Exists(SegmentPath(id)) && new FileInfo(SegmentPath(id)).Length == SegmentBytes;

    /// <summary>
    /// 40 Puts in two steps, each after the preparer finished: the first rotation's spare (3) is
    /// prefilled before the second rotation takes it (Puts outrun the preparer otherwise, and a
    /// spare taken before its prefill is written as a plain file). Then the active segment (3) and
    /// the spare (4) are at full size and the sealed segment 2 (prefilled or not: the first Puts
    /// may outrun the preparer) ends at its seal.
    /// </summary>
    private void PutFortyAcrossPrefilledSegments(TailDbStore store)
    {
        Put(store, 20);
        Eventually(() => Prefilled(3), "segment 3 prefilled");
        Put(store, 40, first: 20);
        Eventually(() => Prefilled(3) && Prefilled(4) && EndsAtItsLastByte(SegmentPath(2)), "segments 3 and 4 prefilled and 2 cut back");
    }

    /// <summary>The directory as a crash (SIGKILL) would leave it: every file as the page cache holds it now.</summary>
    private string CrashImage()
    {
        foreach (string file in Directory.GetFiles(_dir.Path))
        {
            if (Path.GetFileName(file) != "LOCK")
            {
                File.Copy(file, Path.Combine(_image.Path, Path.GetFileName(file)));
            }
        }

        return _image.Path;
    }

    [Fact]
    public void TheZerosAreWrittenByAThreadThatTakesACoreOnlyWhenNoOneElseWantsIt()
    {
        using var store = TailDbStore.Open(Options(_dir.Path));
        var expected = OperatingSystem.IsLinux() ? CompactionPriority.Idle : OperatingSystem.IsWindows() ? CompactionPriority.Low : CompactionPriority.Normal;
        Eventually(() => store.PrefillPriority == expected, $"the prefilling thread at {expected} (it is at {store.PrefillPriority})");
    }

    /// <summary>
    /// 4 MiB segments of 60,022-byte records: the prefill writes the spare in 1 MiB chunks, and
    /// its third (at 2 MiB + the header) is held at the device. The rotation takes that spare all
    /// the same, the writer fills the 34 records below the held chunk without waiting, and only
    /// the record that reaches the chunk waits for its zeros, then overwrites them: no zero write
    /// lands on a record (the prefilling thread holds no lock a writer waits on; a starved one
    /// would stall every write behind it).
    /// </summary>
    [Fact]
    public async Task AWriterTakesASpareWhoseZerosAreStillBeingWrittenAndWaitsOnlyForTheChunkItReaches()
    {
        const int big = 60_000;
        using var device = new GatedDevice();
        long held = RecordFormat.FileHeaderSize + (2 << 20);
        device.CloseWrite("00000002-0000.seg", held);
        using var store = TailDbStore.Open(Options(_dir.Path) with { SegmentMaxBytes = 4 << 20, Device = device });

        // A failed assertion must not leave the prefilling thread held at the gate: the store's
        // Dispose waits for that thread.
        try
        {
            byte[] ValueOfKey(int k) => Enumerable.Repeat((byte)('a' + (k % 26)), big).ToArray();
            void PutRange(int from, int to)
            {
                for (int k = from; k < to; k++)
                {
                    store.Put($"key{k:D3}", ValueOfKey(k));
                }
            }

            // 36 records: more than half of segment 1, so the spare (2) is prefilled up to the held chunk.
            PutRange(0, 36);
            Assert.True(device.WaitUntilHeld(1), "the prefill never reached its third chunk");

            // Records 36..68 fill segment 1, 69 rotates into the spare, and 69..102 (34 records, to
            // 2,040,756 bytes) stay below the held chunk: a writer waiting for zeros it had not
            // reached would not finish them.
            Task below = Task.Run(() => PutRange(36, 103));
            Assert.Same(below, await Task.WhenAny(below, Task.Delay(TimeSpan.FromSeconds(30))));
            Assert.Equal(RecordFormat.FileHeaderSize + (34L * RecordFormat.RecordSize(6, big)), TestDirectory.WrittenBytes(SegmentPath(2)));

            Task crossing = Task.Run(() => PutRange(103, 104));
            // Held until the gate opens (a writer that did not wait would be done at once, and its
            // record then overwritten by the zeros: the reads below would fail).
            Assert.NotSame(crossing, await Task.WhenAny(crossing, Task.Delay(TimeSpan.FromMilliseconds(200))));
            device.Open();
            Assert.Same(crossing, await Task.WhenAny(crossing, Task.Delay(TimeSpan.FromSeconds(30))));

            for (int k = 0; k < 104; k++)
            {
                Assert.Equal(ValueOfKey(k), store.Get($"key{k:D3}"));
            }
        }
        finally
        {
            device.Open();
        }
    }

    [Fact]
    public void NoSpareIsPrefilledBeforeASegmentIsHalfWritten()
    {
        using var store = TailDbStore.Open(Options(_dir.Path));
        Put(store, 7);

        // Give the preparer the time it takes to fill one (it would have been woken by now).
        Thread.Sleep(200);
        Assert.All(_dir.SegmentFiles(), f => Assert.True(new FileInfo(f).Length < SegmentBytes, $"{f}: {new FileInfo(f).Length} bytes"));
    }

    [Fact]
    public void OnceASegmentIsHalfWrittenTheSpareMadeAtOpenIsPrefilledBeforeTheRotationTakesIt()
    {
        using var store = TailDbStore.Open(Options(_dir.Path));
        Put(store, 9);
        Eventually(() => Prefilled(2), "the spare made at open prefilled");

        Put(store, 20, first: 9);
        Assert.Equal(SegmentBytes, new FileInfo(SegmentPath(2)).Length);
        for (int k = 0; k < 20; k++)
        {
            Assert.Equal(ValueOf(0), store.Get($"key{k:D3}"));
        }
    }

    [Fact]
    public void EachLaterSpareIsZerosToTheSegmentSizeAndASealedOneIsCutBackToItsSeal()
    {
        using var store = TailDbStore.Open(Options(_dir.Path));

        // Segment 1 was made at open, never a spare.
        PutFortyAcrossPrefilledSegments(store);
        Assert.Equal(RecordFormat.FileHeaderSize, TestDirectory.WrittenBytes(SegmentPath(4)));
        Assert.True(new FileInfo(SegmentPath(1)).Length < SegmentBytes);
    }

    /// <summary>Whether a file ends where its last record or seal does (a seal's offset value ends in a few zero bytes).</summary>
    private static bool EndsAtItsLastByte(string file) =>
        new FileInfo(file).Length - TestDirectory.WrittenBytes(file) < 8;

    [Fact]
    public void ClosingCutsThePrefilledActiveSegmentBackToItsLastRecord()
    {
        using (var store = TailDbStore.Open(Options(_dir.Path)))
        {
            PutFortyAcrossPrefilledSegments(store);
        }

        Assert.All(_dir.SegmentFiles(), f => Assert.True(EndsAtItsLastByte(f), $"{f}: {new FileInfo(f).Length} bytes, {TestDirectory.WrittenBytes(f)} written"));

        using var reopened = TailDbStore.Open(Options(_dir.Path));
        Assert.False(reopened.Recovery.FoundDamage);
        Assert.Equal(ValueOf(0), reopened.Get("key039"));
    }

    [Fact]
    public void ACrashLeavesFullSizeFilesWhoseZerosRecoveryReadsAsUnwrittenNotAsDamage()
    {
        using (var store = TailDbStore.Open(Options(_dir.Path)))
        {
            // Past two rotations: the active segment is a prefilled spare, and so is the next one.
            PutFortyAcrossPrefilledSegments(store);
            string image = CrashImage();

            using var recovered = TailDbStore.Open(Options(image));
            Assert.False(recovered.Recovery.FoundDamage);
            Assert.Empty(recovered.Recovery.TailTruncations);
            Assert.Equal(1, recovered.Recovery.LeftoverFilesRemoved);
            for (int k = 0; k < 40; k++)
            {
                Assert.Equal(ValueOf(0), recovered.Get($"key{k:D3}"));
            }

            // Appends go on where the log ended, not after the zeros.
            recovered.Put("after", "crash"u8);
        }

        using var again = TailDbStore.Open(Options(_image.Path));
        Assert.False(again.Recovery.FoundDamage);
        Assert.Equal("crash", Encoding.UTF8.GetString(again.Get("after")!));
        Assert.Equal(ValueOf(0), again.Get("key039"));
    }

    [Fact]
    public void ARecordTornJustBeforeTheZerosIsATornTailAndItsKeyKeepsItsPreviousValue()
    {
        string image;
        using (var store = TailDbStore.Open(Options(_dir.Path)))
        {
            PutFortyAcrossPrefilledSegments(store);
            store.Put("key039", ValueOf(1));
            image = CrashImage();
        }

        // The last record's value loses its last byte, as a write cut short by the kill would leave it.
        string active = _dir.SegmentFiles().Select(f => Path.Combine(image, Path.GetFileName(f)))
            .Last(f => TestDirectory.WrittenBytes(f) > RecordFormat.FileHeaderSize);
        long written = TestDirectory.WrittenBytes(active);
        using (var file = new FileStream(active, FileMode.Open, FileAccess.Write))
        {
            file.Position = written - 1;
            file.WriteByte(0);
        }

        using var recovered = TailDbStore.Open(Options(image));
        TailTruncation cut = Assert.Single(recovered.Recovery.TailTruncations);
        Assert.Equal(written - RecordBytes, cut.Offset);
        Assert.Empty(recovered.Recovery.CorruptRecords);
        Assert.Equal(ValueOf(0), recovered.Get("key039"));
    }

    [Fact]
    public void ASealedSegmentACrashLeftBeforeItsZerosWereCutIsStillSealed()
    {
        using (var store = TailDbStore.Open(Options(_dir.Path)))
        {
            Put(store, 40);
        }

        // What a kill between the seal and its trim leaves: the seal, then zeros to the segment size.
        string first = _dir.SegmentFiles()[0];
        using (var file = new FileStream(first, FileMode.Open, FileAccess.Write))
        {
            file.SetLength(SegmentBytes);
        }

        using var reopened = TailDbStore.Open(Options(_dir.Path));
        Assert.False(reopened.Recovery.FoundDamage);
        Assert.Equal(ValueOf(0), reopened.Get("key000"));
        Assert.Equal(ValueOf(0), reopened.Get("key039"));
    }
}
