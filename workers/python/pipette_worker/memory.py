"""Resident memory of this process, as Linux reports it in /proc/self (docs/protocol.md)."""

import os


class MemoryReadError(Exception):
    """The readings cannot be had (not Linux, or /proc is not mounted)."""


def parse_proc_status(text):
    """(rss, hwm) in bytes from the text of /proc/<pid>/status (VmRSS and VmHWM, in kB)."""
    values = {}
    for line in text.splitlines():
        name, _, rest = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            parts = rest.split()
            if len(parts) == 2 and parts[1] == "kB" and parts[0].isdigit():
                values[name] = int(parts[0]) * 1024
    if "VmRSS" not in values or "VmHWM" not in values:
        raise MemoryReadError("cannot read VmRSS/VmHWM from /proc/self/status")
    return values["VmRSS"], values["VmHWM"]


def read_memory():
    """(rss, hwm) of this process in bytes; raises MemoryReadError when they cannot be read."""
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as f:
            return parse_proc_status(f.read())
    except OSError as e:
        raise MemoryReadError("cannot read VmRSS/VmHWM from /proc/self/status") from e


def reset_peak_memory():
    """Resets VmHWM to the current VmRSS (writes "5" to /proc/self/clear_refs).

    Returns (True, "") or (False, the reason) when the kernel does not allow it.
    """
    try:
        fd = os.open("/proc/self/clear_refs", os.O_WRONLY | os.O_CLOEXEC)
    except OSError as e:
        return False, "cannot open /proc/self/clear_refs: " + e.strerror
    try:
        if os.write(fd, b"5") != 1:
            return False, "cannot write /proc/self/clear_refs"
    except OSError as e:
        return False, "cannot write /proc/self/clear_refs: " + e.strerror
    finally:
        os.close(fd)
    return True, ""
