#!/usr/bin/env python3
"""The CPU a command costs with every process under it counted, orphans included.

    python benchmarks/all_cpu.py .venv/bin/python -m pytest -n 0 -p no:cacheprovider tests/test_web_browser.py

``/usr/bin/time`` (and a worker's RUSAGE_CHILDREN) counts a process's CPU once its parent has reaped
it, up the chain to the command. When Playwright closes Chromium, two of Chromium's processes (as
its zygotes are: they reap the renderers) and crashpad's are left unreaped by the browser process:
they are handed to init, and with them the CPU of every renderer they reaped, which
``/usr/bin/time`` then never sees (test_web_security_browser.py: 9 s of CPU by ``/usr/bin/time``,
18 s in all). Here the command runs under a child subreaper (Linux's PR_SET_CHILD_SUBREAPER): every
orphan under it is handed to this process, which reaps it, so RUSAGE_CHILDREN counts all of them.
Prints user+system CPU seconds and wall seconds on stderr, and exits with the command's status.
On a shared machine the figures move with the load: read them as such.
"""

from __future__ import annotations

import ctypes
import os
import resource
import subprocess
import sys
import time

PR_SET_CHILD_SUBREAPER = 36


def main() -> int:
    if len(sys.argv) < 2:
        sys.exit("usage: python benchmarks/all_cpu.py COMMAND [ARGS...]")
    if ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        sys.exit(f"cannot become a child subreaper: {os.strerror(ctypes.get_errno())}")
    start = time.monotonic()
    command = subprocess.Popen(sys.argv[1:])
    status = 0
    while True:  # the command, then every orphan handed to us, until none is left
        try:
            pid, waited = os.wait()
        except ChildProcessError:
            break
        if pid == command.pid:
            status = os.waitstatus_to_exitcode(waited)
            command.returncode = status
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(f"{used.ru_utime:.2f}+{used.ru_stime:.2f} s of CPU ({used.ru_utime + used.ru_stime:.1f} s, every "
          f"process under the command), {time.monotonic() - start:.0f} s wall", file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
