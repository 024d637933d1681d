"""What the FMUs say and who is to blame: the FMI logger callback (``MessageLog``) and the
failure of a run (``RunFailure``), attributed to the instance, and where the FMU's message
names one, to the variable."""

from __future__ import annotations

import re
import sys
from ctypes import byref

from fmpy import calloc, free
from fmpy.fmi1 import FMICallException
from fmpy.fmi2 import (
    fmi2CallbackAllocateMemoryTYPE,
    fmi2CallbackFreeMemoryTYPE,
    fmi2CallbackFunctions,
    fmi2CallbackLoggerTYPE,
)

STATUS = ["ok", "warning", "discard", "error", "fatal", "pending"]  # fmi2Status by value
FMI_FATAL = 4
PYTHONFMU_FATAL_ECHO = "Fatal py exception encountered"


def status_label(status: int) -> str:
    return STATUS[status] if 0 <= status < len(STATUS) else f"status {status}"


def fmt_time(t: float) -> str:
    return f"{t:.10g}"


class RunFailure(Exception):
    """The run stopped on an error; ``info`` goes into summary.json under ``failure``."""

    def __init__(self, reason: str, **info):
        super().__init__(reason)
        self.reason = reason
        self.info = info


class MessageLog:
    """Collects what the FMUs log through the FMI logger callback. Warnings and errors are kept
    (the last ones per instance, to quote in a failure) and echoed to stderr."""

    def __init__(self, echo: bool = True, keep: int = 200):
        self.echo = echo
        self.keep = keep
        self.messages: list[dict] = []
        self.counts = {"warning": 0, "error": 0}
        self.last: dict[str, list[str]] = {}
        #: the simulated time of each kept message (the communication point the loop had reached)
        self.times: list[float] = []
        self.clock = None   # () -> that time; None: none known

        def logger(env, instance, status, category, message):
            try:
                inst = instance.decode("utf-8", "replace") if instance else "?"
                msg = message.decode("utf-8", "replace") if message else ""
                label = STATUS[status] if 0 <= status < len(STATUS) else str(status)
                # pythonfmu 0.7.0 follows every Python exception with its own generic fatal
                # message ("Fatal py exception encountered: ... unknown error"); once the FMU
                # has logged why, it adds nothing
                if status == FMI_FATAL and msg.startswith(PYTHONFMU_FATAL_ECHO) and self.last.get(inst):
                    return
                if status >= 1:
                    self.counts["warning" if status == 1 else "error"] += 1
                    if len(self.messages) < self.keep:
                        self.messages.append({"instance": inst, "status": label, "message": msg})
                        self.times.append(float(self.clock()) if self.clock is not None else float("nan"))
                    last = self.last.setdefault(inst, [])
                    last.append(msg)
                    del last[:-5]
                    if self.echo:
                        print(f"[{inst}] {label.upper()}: {msg}", file=sys.stderr)
            except Exception:  # never raise into C
                pass

        self._logger = fmi2CallbackLoggerTYPE(logger)
        self.callbacks = fmi2CallbackFunctions()
        self.callbacks.logger = self._logger
        self.callbacks.allocateMemory = fmi2CallbackAllocateMemoryTYPE(calloc)
        self.callbacks.freeMemory = fmi2CallbackFreeMemoryTYPE(free)
        try:  # formats printf-style messages natively, like fmpy's own default callbacks
            from fmpy.logging import addLoggerProxy

            addLoggerProxy(byref(self.callbacks))
        except Exception:
            pass


def failure_from(instance, t: float, function: str, status: int, log: MessageLog, variable: str | None = None,
                 suspects: list[str] | None = None) -> RunFailure:
    """The failure of ``function`` on ``instance`` (a ``stepper.Instance``): its reason names the
    instance, the variable when known (given, the non-finite inputs ``suspects``, or the first
    variable the FMU's last message names) and quotes the FMU's own explanation."""
    label = status_label(status)
    instance.state = "fatal" if status >= FMI_FATAL else "error"
    msgs = log.last.get(instance.name, [])
    # the FMU's own explanation, rather than pythonfmu's generic "Fatal py exception" line
    own = [m for m in msgs if not m.startswith(PYTHONFMU_FATAL_ECHO)]
    best = own[-1] if own else (msgs[-1] if msgs else None)
    var = variable
    if var is None and suspects:
        var = ", ".join(suspects)
    if var is None and best:
        var = variable_in(best, instance.md)
    where = f"{instance.name}" + (f".{var}" if var and ", " not in var else "")
    reason = f"{where}: {function} returned {label} at t={fmt_time(t)} s"
    if suspects:
        reason += f" (non-finite input: {', '.join(suspects)})"
    if best:
        reason += f": {best}"
    return RunFailure(reason, instance=instance.name, variable=var, time=t, function=function, status=label,
                      messages=list(msgs))


def variable_in(message: str, md) -> str | None:
    """The first of the instance's variable names that the message mentions, if any; else the
    first elements of a vector or matrix it names as such (``ThrusterDir[1,1..3]``, as the
    message writes them)."""
    best = None
    for v in md.modelVariables:
        m = re.search(r"(?<![\w\[])" + re.escape(v.name) + r"(?![\w\[])", message)
        if m and (best is None or m.start() < best[0] or (m.start() == best[0] and len(v.name) > len(best[1]))):
            best = (m.start(), v.name)
    if best is None:
        bases = {v.name.split("[", 1)[0] for v in md.modelVariables if v.name.endswith("]")}
        for base in bases:
            m = re.search(r"(?<![\w\[])" + re.escape(base) + r"\[[^\]\s]*\]", message)
            if m and (best is None or m.start() < best[0]):
                best = (m.start(), m.group(0))
    return best[1] if best else None


def guarded_call(instance, t: float, function: str, fn, log: MessageLog, variable: str | None = None):
    """``fn()``, with any error turned into a ``RunFailure`` that names the instance."""
    try:
        return fn()
    except FMICallException as e:
        raise failure_from(instance, t, e.function or function, e.status, log, variable) from None
    except RunFailure:
        raise
    except Exception as e:  # fmpy raises plain exceptions for e.g. a failed instantiation
        raise RunFailure(f"{instance.name}: {function} failed at t={fmt_time(t)} s: {e}", instance=instance.name,
                         time=t, function=function, messages=list(log.last.get(instance.name, []))) from None
