"""A worker's C heap kept padded, so the megabyte buffers it makes and frees a chunk at a time
reuse memory it holds instead of taking fresh pages from the kernel each time.

Why: every chunk a worker encodes goes through a few buffers of about a megabyte (the lines it
reads, the records it joins, the file it spills them to). glibc's malloc gives the top of its
heap back to the kernel once more than a little is free there, and the next chunk's buffers
take it again, page by page, each page a fault the kernel zeroes. On 100,000 run rows that was
190,000-330,000 page faults and 1.1-1.6 s of system time in 11-12 s of CPU; with the heap's
top padded by 4 MiB, 16,500 faults and 0.6 s, and 5-13% less wall time. The peak memory fell
too, as freed memory is used again rather than fragmented: on 1 GB of OTLP traces the
command's peak went from 81 to 77 MB, and a 16 MiB pad was no faster (``bench/RESULTS.md``;
``bench/bench_heap_pad.py`` counts the faults of a worker's own work).

Only glibc has this setting (``mallopt(M_TOP_PAD)``, as the ``MALLOC_TOP_PAD_`` environment
variable sets it); elsewhere nothing is done. It is set in the worker processes, which exit with
the export, and by the ``toolscore export`` command in its own process; not by ``export_runs``
itself, whose caller may be a long-lived program with its own use of memory.
"""

from __future__ import annotations

import platform

#: glibc's ``M_TOP_PAD`` option of ``mallopt``: how much free memory the heap keeps at its top.
M_TOP_PAD = -2
PAD_BYTES = 4 << 20


def pad_the_heap(pad: int = PAD_BYTES) -> bool:
    """Ask glibc's malloc to keep ``pad`` bytes free at the top of the heap; False where it cannot."""
    if platform.system() != "Linux" or platform.libc_ver()[0] != "glibc":
        return False
    try:
        import ctypes

        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    return bool(mallopt(M_TOP_PAD, pad))


__all__ = ["PAD_BYTES", "pad_the_heap"]
