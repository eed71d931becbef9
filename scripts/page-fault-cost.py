#!/usr/bin/env python3
"""What a page fault costs here: 64 MiB of fresh anonymous memory touched page by page, with and
without MADV_HUGEPAGE (docs/benchmarks.md, "Reopen on huge pages"). Three rounds."""
import mmap
import time


def touch(huge, mib=64):
    m = mmap.mmap(-1, mib << 20, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    if huge:
        m.madvise(mmap.MADV_HUGEPAGE)
    started = time.perf_counter()
    for offset in range(0, mib << 20, 4096):
        m[offset] = 1
    elapsed = time.perf_counter() - started
    m.close()
    return elapsed * 1000


for _ in range(3):
    print(f"64 MiB, 4 KiB pages: {touch(False):.1f} ms   advised MADV_HUGEPAGE: {touch(True):.1f} ms")
