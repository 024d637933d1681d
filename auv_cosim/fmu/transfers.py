"""How a host reads and sets a slave's values: `Transfers`, a part of `FmuSlave` (auv_cosim.fmu.slave).

The FMI rules on which variable may be set when (a fixed parameter after initialisation, an
output at any time: refused with fmi2Error), the declared ranges (a value set beyond one:
fmi2Warning, logged once per variable), the errors that name the FMU and the value reference
(never a Python file), and the fast paths a host stepping many times takes: the prepared
transfers of the Python side and the direct transfers of the native wrapper (auv_cosim/build/native/direct_transfers.c),
which read and write the values where they live without running Python.
"""
from __future__ import annotations

import operator
import sys
from typing import Any, Callable, Dict, List, MutableMapping, Optional, Tuple

from pythonfmu.enums import Fmi2Status
from pythonfmu.variables import Boolean, Integer, Real, ScalarVariable, String

from .errors import FmuError
from .registration import PARAMETER_CAUSALITIES

#: what a setter returns when it set every value but one was beyond its declared range: the
#: native wrapper makes the call's status fmi2Warning of it (pythonfmu's stock binary ignores it)
WARNING = int(Fmi2Status.warning)


class Transfers:
    """The getters and setters of `FmuSlave` (see the module documentation)."""

    # ---- getters and setters: pythonfmu's, guarded
    #
    # The master calls these several times per communication step (set the inputs, step, read
    # the outputs, for every instance), so the FMI rules of `_settable` are not re-derived
    # value by value. `_access_tables` applies them once to every variable, for the two
    # phases that differ (before the end of initialisation, and after it), and keeps the
    # outcome as dicts keyed by value reference:
    #
    #   _getters[kind]            vr -> getter, for every variable of that type;
    #   _setters[kind][setup]     vr -> (setter, is_parameter), only the variables that may be
    #                             set now; `setup` is True while instantiated or initialising.
    #
    # A value reference missing from a dict is the rare case (a wrong type, an unknown
    # reference, a refused set): it goes the slow way (`_set_one_slowly`, `_get_error`), which
    # is the rule-by-rule code with its messages. Registering a variable drops the tables.
    _SETUP_PHASES = ("instantiated", "initialization")

    def register_variable(self, var: ScalarVariable, nested: bool = True):
        super().register_variable(var, nested)
        self._tables = None
        self._readers = {}
        self._writers = {}
        self._native_epoch = object()

    def _settable(self, var: ScalarVariable, phase: Optional[str] = None) -> Optional[str]:
        """None if `var` may be set in `phase` (default: now), else why not."""
        phase = self._phase if phase is None else phase
        causality = var.causality.name if var.causality is not None else "local"
        variability = var.variability.name if var.variability is not None else "continuous"
        if variability == "constant":
            return "it is a constant"
        if causality == "input":
            return None
        if causality == "parameter":
            if phase in self._SETUP_PHASES or variability == "tunable":
                return None
            return "it is a fixed parameter and cannot change after initialisation"
        initial = var.initial.name if var.initial is not None else None
        if initial in ("exact", "approx") and phase in self._SETUP_PHASES:
            return None
        return f"its causality is {causality}"

    def _access_tables(self):
        """Build the getter and setter tables (see above) from the registered variables."""
        kinds = (Real, Integer, Boolean, String)
        getters = {kind: {} for kind in kinds}
        setters = {kind: ({}, {}) for kind in kinds}   # [False]: after initialisation, [True]: before
        for vr, var in self.vars.items():
            for kind in kinds:
                if not isinstance(var, kind):
                    continue
                getters[kind][vr] = var.getter
                is_parameter = var.causality is not None and var.causality.name in PARAMETER_CAUSALITIES
                for setup, phase in ((False, "stepping"), (True, "instantiated")):
                    if var.setter is not None and self._settable(var, phase) is None:
                        setters[kind][setup][vr] = (var.setter, is_parameter)
        self._getters, self._setters = getters, setters
        self._tables = True

    def _set(self, kind, vrs, values):
        if not self._tables:
            self._access_tables()
        setup = self._phase in self._SETUP_PHASES
        if kind is Real:
            write = self._writer(vrs, setup)
            if write is not None and write(values):
                return self._out_of_range(vrs, values) if self._ranges else None
        table = self._setters[kind][setup]
        changed = parameter = False
        try:
            for vr, value in zip(vrs, values):
                entry = table.get(vr)
                if entry is None:
                    done, is_parameter = self._set_one_slowly(kind, vr, value)
                else:
                    (setter, is_parameter), done = entry, True
                    setter(value)
                changed = changed or done
                parameter = parameter or is_parameter
        finally:  # the flags tell what was set, also when a later value fails
            if changed:
                self.values_changed = True
            if parameter:
                self.parameters_changed = True
        return self._out_of_range(vrs, values) if kind is Real and self._ranges else None

    def _out_of_range(self, vrs, values) -> Optional[int]:
        """WARNING when a value just set lies beyond its variable's declared range, the first
        time for that variable (logged: name, value, range, what the model does with it); None
        otherwise. NaN is no range's business: the model refuses it at the step."""
        ranges, news = self._ranges, []
        for vr, value in zip(vrs, values):
            bounds = ranges.get(vr)
            if bounds is not None and (value < bounds[0] or value > bounds[1]) \
                    and vr not in self._range_warned:
                self._range_warned.add(vr)
                news.append(f"{bounds[2]} = {float(value)!r} is outside its range "
                            f"[{bounds[0]!r}, {bounds[1]!r}] (modelDescription min/max)")
        if not news:
            return None
        self.log_warning(f"fmi2SetReal: {'; '.join(news)}: the model limits it to the range "
                         f"(said once per variable)")
        return WARNING

    def _set_one_slowly(self, kind, vr, value):
        """One value that is not in the setter table, rule by rule: raise for a wrong type or
        an unknown reference, a set the FMI rules refuse now. Returns (set, is_parameter)."""
        var = self._variable(vr, kind)
        reason = self._settable(var)
        if reason is not None:
            raise FmuError(f"cannot set {var.name} now: {reason}; the value {value!r} is ignored")
        var.setter(value)
        return True, var.causality is not None and var.causality.name in PARAMETER_CAUSALITIES

    def _get(self, kind, vrs, convert):
        if (self._phase == "initialization" and self.values_changed
                and not self._in_initial_refresh):
            self._in_initial_refresh = True
            try:
                self.fmu_initial_outputs()
            except Exception:
                pass  # reported by exit_initialization_mode
            finally:
                self._in_initial_refresh = False
            self.values_changed = False
        if kind is Real:
            read = self._reader(vrs)
            if read is not None:
                try:
                    return read()
                except Exception:
                    pass  # the getters below meet the same fault and raise it as they always did
        if not self._tables:
            self._access_tables()
        table = self._getters[kind]
        try:
            return [convert(table[vr]()) for vr in vrs]
        except KeyError:
            error = self._get_error(kind, vrs)
            if error is None:  # every reference is fine: the KeyError came from a getter
                raise
            raise error from None

    # Prepared transfers. A host sets an instance's inputs in one fmi2SetReal call per step and
    # reads its outputs in one fmi2GetReal call, with the same references every time. When the
    # Reals of such a call all live in one place that this class made the getters and setters
    # for, the call is served in one operation instead of one getter or setter call per value:
    #
    #   elements of one array (`element=`)     read: `array[a:b].tolist()` when they are
    #                                          consecutive and in order; set: one slice
    #                                          assignment when they fill a range (any order);
    #   entries of one dict (`entry=`)         read: `operator.itemgetter`; set: `dict.update`;
    #   plain attributes (`attr=` or the name) read: `operator.attrgetter` (getattr, so a
    #                                          property is read as before); set: one update of
    #                                          `self.__dict__`, only when no class in the MRO
    #                                          makes the name a data descriptor (a property) and
    #                                          `__setattr__` is object's: then setattr would
    #                                          write that dict too.
    #
    # Each value goes through float() exactly as the getter or setter would (so the results
    # are the same doubles). The reader or writer is remembered per tuple of references (and,
    # for a writer, per phase group: what may be set differs before and after initialisation),
    # for a bounded number of tuples; registering a variable forgets them all. Anything else
    # takes the per-value path with its rules and messages: a reference that is unknown, of
    # another type, refused now, repeated, or kept elsewhere (a custom getter or setter), and
    # any failure. A writer converts every value before it stores any, and stores them in one
    # step that cannot fail half-way, so on a failure it has changed nothing and the per-value
    # path then sets the values before the faulty one, raises, and sets the flags, as always.
    _MAX_PREPARED = 64

    def _reader(self, vrs) -> Optional[Callable[[], list]]:
        """The prepared reader of the Reals `vrs` (see "Prepared transfers"), or None."""
        try:
            key = tuple(vrs)
            return self._readers[key]
        except KeyError:
            pass
        except TypeError:   # an unhashable reference: the getters say what is wrong
            return None
        read = self._make_reader(key) if len(key) > 1 else None
        if len(self._readers) < self._MAX_PREPARED:
            self._readers[key] = read
        return read

    def _make_reader(self, vrs: tuple) -> Optional[Callable[[], list]]:
        elements = [self._elements.get(vr) for vr in vrs]
        if None not in elements:
            array, start = elements[0]
            if elements == [(array, start + i) for i in range(len(vrs))]:
                return self._make_slice_reader(array, slice(start, start + len(vrs)))
            return None
        names = [self._attributes.get(vr) for vr in vrs]
        if None not in names and not any("." in name for name in names):  # a dot: a path to attrgetter
            values_of = operator.attrgetter(*names)

            def read_attributes():
                return list(map(float, values_of(self)))
            return read_attributes
        entries = [self._entries.get(vr) for vr in vrs]
        if None not in entries:
            mapping = entries[0][0]
            if any(entry[0] is not mapping for entry in entries):
                return None
            values_in = operator.itemgetter(*(key for _, key in entries))

            def read_entries():
                return list(map(float, values_in(mapping)))
            return read_entries
        return None

    def _make_slice_reader(self, array: str, part: slice) -> Callable[[], list]:
        size = part.stop - part.start

        def read():
            values = getattr(self, array)[part]
            if len(values) != size:  # too short: the getters raise the IndexError
                raise IndexError(f"self.{array} has no element {part.start + len(values)}")
            if getattr(values, "dtype", None) == "float64":
                return values.tolist()   # exactly the float(array[i]) of the getters
            return list(map(float, values))
        return read

    def _writer(self, vrs, setup: bool) -> Optional[Callable[[Any], bool]]:
        """The prepared writer of the Reals `vrs` in the phase group `setup` (see "Prepared
        transfers"), or None. It returns False, having changed nothing, when the per-value path
        must do the set."""
        try:
            key = (tuple(vrs), setup)
            return self._writers[key]
        except KeyError:
            pass
        except TypeError:   # an unhashable reference: the per-value path says what is wrong
            return None
        if not self._tables:
            self._access_tables()
        write = self._make_writer(key[0], self._setters[Real][setup])
        if len(self._writers) < self._MAX_PREPARED:
            self._writers[key] = write
        return write

    def _make_writer(self, vrs: tuple, settable: dict) -> Optional[Callable[[Any], bool]]:
        n = len(vrs)
        if n == 0 or len(set(vrs)) != n or any(vr not in settable for vr in vrs):
            return None
        store = None
        if all(vr in self._elements for vr in vrs):
            store = self._element_store([self._elements[vr] for vr in vrs])
        elif all(vr in self._attributes for vr in vrs):
            names = [self._attributes[vr] for vr in vrs]
            if all(self._plain_attribute(name) for name in names):
                def store(converted):
                    self.__dict__.update(zip(names, converted))
                    return True
        else:
            entries = [self._entries.get(vr) for vr in vrs]
            if None not in entries and type(entries[0][0]) is dict and all(
                    entry[0] is entries[0][0] for entry in entries):
                mapping, keys = entries[0][0], [key for _, key in entries]

                def store(converted):
                    mapping.update(zip(keys, converted))
                    return True
        if store is None:
            return None
        any_parameter = any(settable[vr][1] for vr in vrs)

        def write(values) -> bool:
            if (type(values) is not list and type(values) is not tuple) or len(values) != n:
                return False
            try:
                converted = list(map(float, values))
                if not store(converted):
                    return False
            except Exception:   # a value float() refuses, a read-only array: nothing was stored
                return False
            self.values_changed = True
            if any_parameter:
                self.parameters_changed = True
            return True
        return write

    def _element_store(self, places) -> Optional[Callable[[list], bool]]:
        """Store values into elements of one array: one slice assignment when the indices fill
        a range (reordered to it), else element by element; False (nothing stored) when the
        array is not a list or a one-dimensional numpy array long enough."""
        arrays = {array for array, _ in places}
        indices = [index for _, index in places]
        if len(arrays) != 1 or min(indices) < 0:
            return None
        array, start, stop = arrays.pop(), min(indices), max(indices) + 1

        def usable(target) -> bool:
            if type(target) is list:
                return len(target) >= stop
            numpy = sys.modules.get("numpy")
            return (numpy is not None and type(target) is numpy.ndarray and target.ndim == 1
                    and len(target) >= stop)

        if stop - start == len(indices):
            order = sorted(range(len(indices)), key=indices.__getitem__)
            in_order = order == list(range(len(indices)))
            part = slice(start, stop)

            def store(converted):
                target = getattr(self, array, None)
                if not usable(target):
                    return False
                target[part] = converted if in_order else [converted[j] for j in order]
                return True
        else:
            def store(converted):
                target = getattr(self, array, None)
                if not usable(target):
                    return False
                for index, value in zip(indices, converted):
                    target[index] = value
                return True
        return store

    def _plain_attribute(self, name: str) -> bool:
        """Whether setattr(self, name, v) only writes self.__dict__[name] (see "Prepared
        transfers")."""
        cls = type(self)
        if cls.__setattr__ is not object.__setattr__ or not hasattr(self, "__dict__"):
            return False
        for klass in cls.__mro__:
            if name in vars(klass):
                found = type(vars(klass)[name])
                return not (hasattr(found, "__set__") or hasattr(found, "__delete__"))
        return True

    # Direct transfers. The project's native wrapper (auv_cosim/build/native/direct_transfers.c) can serve a host's
    # fmi2Get*/fmi2Set* without running any Python code: it asks `_native_plan` where each
    # value lives and then reads or writes it there itself, at every call with those references,
    # until `_native_epoch` changes (a new phase, a registration). A plan describes exactly what
    # this class's own getters and setters do in the stepping phase, for the values kept in a
    # place the wrapper can reach:
    #
    #   ("a", name), index    element `index` of `self.<name>` (`element=`), looked up again at
    #                         every call: a one-dimensional float64 buffer (a numpy array) or a
    #                         list;
    #   ("m", mapping), key   `mapping[key]` of a dict (`entry=`).
    #
    # The wrapper checks at every call what it relies on (the buffer's type, size and format,
    # a list's length, a value that is a float, an int or a bool, or numpy's float64, integer or
    # bool_ scalar, a plain dict) and, when anything differs, makes the call the usual way, through the methods
    # below: the values and the errors are those of the Python path. A plan to set Reals of
    # which some have a declared range carries a third item, per value None or (low, high):
    # the wrapper serves a set whose values all lie within (NaN included, as `_out_of_range`
    # has it) and sends one with a value beyond to the usual way, which warns. The ranges are
    # those of the epoch: changing one (`set_range`) starts a new one. No plan is offered
    # outside the stepping phase (a read may refresh the outputs during initialisation, what
    # may be set differs), for a parameter (a set also raises `parameters_changed`), for
    # values kept elsewhere (a getter, a plain attribute), or when a subclass overrides the
    # methods the plan stands for.
    _DIRECT_KINDS = {"Real": Real, "Integer": Integer, "Boolean": Boolean}

    def _native_plan(self, type_name: str, vrs: tuple, setting: bool) -> Optional[tuple]:
        """Where the values of `vrs` live, for the native wrapper: (sources, slots), a source
        per place (see "Direct transfers") and per value (source number, index or key); or
        None: the wrapper calls the methods (`set_real`, `get_real`, ...) as usual."""
        kind = self._DIRECT_KINDS.get(type_name)
        if kind is None or self._phase != "stepping" or not vrs or self._overrides(type_name, setting):
            return None
        if not self._tables:
            self._access_tables()
        if setting:
            settable = self._setters[kind][False]
            if len(set(vrs)) != len(vrs) or any(vr not in settable or settable[vr][1] for vr in vrs):
                return None
        elif any(vr not in self._getters[kind] for vr in vrs):
            return None
        sources: list = []
        numbers: dict = {}   # (kind, attribute name or id of the dict) -> source number
        slots = []
        for vr in vrs:
            if kind is Real and vr in self._elements:
                name, index = self._elements[vr]
                source, place = ("a", name), index
            elif vr in self._any_entries and type(self._any_entries[vr][0]) is dict:
                mapping, place = self._any_entries[vr]
                source = ("m", mapping)
            else:
                return None
            identity = (source[0], source[1] if source[0] == "a" else id(source[1]))
            if identity not in numbers:
                numbers[identity] = len(sources)
                sources.append(source)
            slots.append((numbers[identity], place))
        if setting and kind is Real and any(vr in self._ranges for vr in vrs):
            bounds = tuple(self._ranges[vr][:2] if vr in self._ranges else None for vr in vrs)
            return tuple(sources), tuple(slots), bounds
        return tuple(sources), tuple(slots)

    def set_range(self, vr: int, low: float, high: float) -> None:
        """Check the Real `vr` against [low, high] from now on (a set beyond: fmi2Warning, see
        `_out_of_range`); the name and whether it was warned about stay."""
        self._ranges[vr] = (float(low), float(high), self._ranges[vr][2])
        self._native_epoch = object()   # a direct set checks the ranges its plan was given

    def _overrides(self, type_name: str, setting: bool) -> bool:
        """Whether a subclass changed a method a direct transfer of this type stands for."""
        names = (f"{'set' if setting else 'get'}_{type_name.lower()}", "_set" if setting else "_get")
        return any(getattr(type(self), name) is not getattr(Transfers, name) for name in names)

    def _get_error(self, kind, vrs) -> Optional[Exception]:
        """Why `vrs` cannot be read as `kind` (the first unknown or wrongly typed reference),
        or None when they all can."""
        try:
            for vr in vrs:
                self._variable(vr, kind)
        except FmuError as error:
            return error
        return None

    def _variable(self, vr, kind) -> ScalarVariable:
        """The variable of value reference `vr`, which must be a `kind`; else an FmuError that
        names the FMU and the reference (a host's mistake, not a fault of the FMU's code)."""
        try:
            var = self.vars.get(vr)
        except TypeError:   # unhashable
            var = None
        if var is None:
            raise FmuError(f"{type(self).__name__} has no variable with value reference {vr!r}")
        if not isinstance(var, kind):
            raise FmuError(f"value reference {vr} of {type(self).__name__} is {var.name}, a "
                           f"{type(var).__name__}, not a {kind.__name__}")
        return var

    # The entry points: the state machine first (auv_cosim.fmu.states), then the transfer.
    def _setter_call(self, function: str, kind, vrs, values):
        try:
            self.refuse_now(function)
            return self._set(kind, vrs, values)
        except Exception as error:
            self.fail(f"{function}: {self._describe(error)}")

    def _getter_call(self, function: str, kind, vrs, convert):
        try:
            self.refuse_now(function)
            return self._get(kind, vrs, convert)
        except Exception as error:
            self.fail(f"{function}: {self._describe(error)}")

    def set_real(self, vrs, values):
        return self._setter_call("fmi2SetReal", Real, vrs, values)

    def set_integer(self, vrs, values):
        return self._setter_call("fmi2SetInteger", Integer, vrs, values)

    def set_boolean(self, vrs, values):
        return self._setter_call("fmi2SetBoolean", Boolean, vrs, values)

    def set_string(self, vrs, values):
        return self._setter_call("fmi2SetString", String, vrs, values)

    def get_real(self, vrs):
        return self._getter_call("fmi2GetReal", Real, vrs, float)

    def get_integer(self, vrs):
        return self._getter_call("fmi2GetInteger", Integer, vrs, int)

    def get_boolean(self, vrs):
        return self._getter_call("fmi2GetBoolean", Boolean, vrs, bool)

    def get_string(self, vrs):
        return self._getter_call("fmi2GetString", String, vrs, str)
