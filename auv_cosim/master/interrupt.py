"""Ctrl-C and SIGTERM during a run: a flag the loop checks after every step."""

from __future__ import annotations

import signal
import threading


class Interrupt:
    """SIGINT/SIGTERM set a flag the loop checks after every step (a Python-level
    KeyboardInterrupt raised inside an FMU's own Python code would be turned into an FMU error
    by pythonfmu). A second Ctrl-C raises KeyboardInterrupt at once. Outside the main thread
    (where signals cannot be handled) it does nothing."""

    def __init__(self):
        self.flag = False
        self.signame = None
        self._old = {}

    def _handler(self, signum, frame):
        if self.flag and signum == signal.SIGINT:
            raise KeyboardInterrupt
        self.flag = True
        self.signame = "Ctrl-C (SIGINT)" if signum == signal.SIGINT else signal.Signals(signum).name

    def __enter__(self):
        if threading.current_thread() is threading.main_thread():
            for s in (signal.SIGINT, signal.SIGTERM):
                try:
                    self._old[s] = signal.signal(s, self._handler)
                except (ValueError, OSError):
                    pass
        return self

    def __exit__(self, *exc):
        for s, h in self._old.items():
            try:
                signal.signal(s, h)
            except (ValueError, OSError):
                pass
        return False
