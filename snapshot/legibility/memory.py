"""The legibility lab's process keeps the memory it frees, instead of faulting it in again.

The lab allocates and frees the same few-megabyte arrays run after run (template
stacks, resampled pages, OCR tensors). glibc serves such blocks with fresh
``mmap`` pages and returns them on free, so each run faulted its pages in anew:
in the README quick start's lab about 150,000-300,000 page faults, 0.4-0.7 s of
system CPU (measured, docs/journal/bench-2026-11-to-12.md). Raising glibc's thresholds keeps the
freed blocks in the heap for the next run. Nothing else changes: the same
arrays, the same bytes.
"""

from __future__ import annotations

import ctypes
import functools

#: glibc's ``mallopt`` parameters (malloc.h).
_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
#: Blocks up to this size come from the heap (glibc's ceiling on 64-bit systems).
MMAP_THRESHOLD = 32 * 1024 * 1024
#: Free memory at the top of the heap kept for reuse before it goes back to the system.
TRIM_THRESHOLD = 256 * 1024 * 1024


@functools.cache
def keep_freed_memory() -> bool:
    """Tell this process's allocator to keep freed blocks (once; True where glibc took it).

    Where the C library has no ``mallopt`` (macOS, Windows) nothing changes and the
    answer is False; the lab runs the same, with more page faults.

    >>> keep_freed_memory() == hasattr(ctypes.CDLL(None), "mallopt")  # glibc takes both settings
    True
    """
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (AttributeError, OSError, TypeError):
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    return bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(
        mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD)
    )
