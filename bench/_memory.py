"""Peak resident memory of this process, for the benchmarks that report it (Linux /proc)."""

from __future__ import annotations


def peak_rss_kib() -> int:
    """``VmHWM``: the highest resident size since start (or since :func:`reset_peak`)."""
    with open("/proc/self/status", encoding="ascii") as handle:
        for line in handle:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


def reset_peak() -> None:
    """Start ``VmHWM`` again from the current size (writing 5 to clear_refs), where allowed."""
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as handle:
            handle.write("5")
    except OSError:
        pass
