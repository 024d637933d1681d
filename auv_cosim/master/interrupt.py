"""Ctrl-C and SIGTERM during a run: a flag the loop checks after every step, and a wait that
ends when the signal comes (a pacer's sleep)."""

from __future__ import annotations

import os
import select
import signal
import threading


class Interrupt:
    """SIGINT/SIGTERM set a flag the loop checks after every step (a Python-level
    KeyboardInterrupt raised inside an FMU's own Python code would be turned into an FMU error
    by pythonfmu). A second Ctrl-C raises KeyboardInterrupt at once. Outside the main thread
    (where signals cannot be handled) it does nothing.

    ``wait(seconds)`` sleeps until the time is up or a signal has come. ``time.sleep`` cannot
    do that: after a handler that does not raise, the sleep resumes for the rest of its time
    (PEP 475), so a paced run waiting a long step would outlive SIGTERM. The handler writes one
    byte into a pipe the wait watches (a self-pipe: writing to a pipe is safe in a handler,
    taking a lock such as a ``threading.Event``'s is not)."""

    def __init__(self):
        self.flag = False
        self.signame = None
        self._old = {}
        self._pipe: tuple[int, int] | None = None

    def _handler(self, signum, frame):
        if self.flag and signum == signal.SIGINT:
            raise KeyboardInterrupt
        self.flag = True
        self.signame = "Ctrl-C (SIGINT)" if signum == signal.SIGINT else signal.Signals(signum).name
        if self._pipe is not None:
            try:
                os.write(self._pipe[1], b"!")
            except OSError:   # the pipe is full: a wake-up is waiting already
                pass

    def wait(self, seconds: float) -> bool:
        """Sleep ``seconds`` or until SIGINT or SIGTERM; True when a signal ended the wait (or
        had come before it)."""
        if self.flag:
            return True
        if self._pipe is None:   # outside the main thread: no handler, a plain sleep
            threading.Event().wait(seconds)
            return self.flag
        readable, _, _ = select.select([self._pipe[0]], [], [], max(0.0, seconds))
        return bool(readable) or self.flag

    def __enter__(self):
        if threading.current_thread() is threading.main_thread():
            read, write = os.pipe()
            os.set_blocking(write, False)
            self._pipe = (read, write)
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
        if self._pipe is not None:
            for fd in self._pipe:
                os.close(fd)
            self._pipe = None
        return False
