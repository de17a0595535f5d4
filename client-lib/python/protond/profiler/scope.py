"""Scopes and their metrics, as in Proton: a thread-local stack of (id, name), ids from one
counter, metrics given inside a scope landing on its node. While no session is open these do
nothing and return None, as Proton's."""
import ctypes
import functools
import itertools
import numbers
import threading
import time

from .. import _shim
from .profile import is_profiling

_local = threading.local()
_ids = itertools.count()
_CPU_TIME = "cpu_time (ns)"


def _stack():
    if not hasattr(_local, "stack"):
        _local.stack = []
    return _local.stack


def depth():
    """How many scopes are open on the calling thread."""
    return len(_stack())


_KINDS = "metrics are int or float, or lists, tuples or 1-D tensors of them"
_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1


def _refuse(name, value):
    raise TypeError(f"metric {name!r} has a value of type {type(value).__name__}; {_KINDS}")


def _elements(name, value):
    """The elements of a list, tuple or tensor metric (a tensor's copied to the host: a device
    tensor waits for the GPU work that makes it); None for a scalar or a one-element tensor."""
    if isinstance(value, (list, tuple)):
        return list(value)
    if isinstance(value, (int, float)) or not hasattr(value, "tolist"):
        return None
    shape = tuple(getattr(value, "shape", ()))
    if len(shape) > 1 and any(size != 1 for size in shape):
        raise ValueError(f"metric {name!r} is a tensor of shape {shape}; a tensor metric is 1-D")
    elements = value.tolist()
    if not isinstance(elements, list):
        return None  # a 0-d tensor
    while len(elements) == 1 and isinstance(elements[0], list):
        elements = elements[0]  # a one-element tensor of shape (1, 1)
    if len(elements) == 1:
        return None
    # A bool tensor's elements count as 0 and 1, as Proton's .long() makes them.
    return [int(e) if isinstance(e, bool) else e for e in elements]


def _add_vector(lib, name, elements):
    if not elements:
        raise ValueError(f"metric {name!r} is empty; a vector metric needs at least one element")
    for i, element in enumerate(elements):
        if not isinstance(element, numbers.Real) and hasattr(element, "item"):
            elements[i] = element = element.item()  # a one-element tensor or a numpy scalar
        if isinstance(element, (list, tuple)):
            raise TypeError(f"metric {name!r} has a nested {type(element).__name__}; a vector "
                            "metric is a flat list of int or float")
        if isinstance(element, bool) or not isinstance(element, numbers.Real):
            raise TypeError(f"metric {name!r} has an element of type {type(element).__name__}; "
                            f"{_KINDS}")
    if all(isinstance(element, numbers.Integral) for element in elements):
        values = [int(element) for element in elements]
        if not all(_INT64_MIN <= v <= _INT64_MAX for v in values):
            raise ValueError(f"metric {name!r} has an element that does not fit int64")
        array, add = (ctypes.c_int64 * len(values))(*values), lib.protond_metric_int64_vector
    else:  # any float makes a vector of doubles, as in Proton
        values = [float(element) for element in elements]
        array, add = (ctypes.c_double * len(values))(*values), lib.protond_metric_double_vector
    return add(name.encode(), array, len(values))


def _add_metric(lib, name, value):
    elements = _elements(name, value)
    if elements is not None:
        result = _add_vector(lib, name, elements)
    else:
        if not isinstance(value, (int, float)) and hasattr(value, "item"):
            value = value.item()  # a tensor with one element, on the CPU or a device
        # bool is a subclass of int, but True is not a count: refuse it rather than store 1.
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            _refuse(name, value)
        add = lib.protond_metric_int64 if isinstance(value, int) else lib.protond_metric_double
        result = add(name.encode(), value)
    if result in (_shim.ERR_METRIC_TYPE, _shim.ERR_INVALID_ARGUMENT):
        raise ValueError(_shim.last_error())


def _add_metrics(metrics):
    lib = _shim.library()
    for name, value in (metrics or {}).items():
        _add_metric(lib, name, value)


def enter_scope(name, *, metrics=None):
    """Opens scope `name` on the calling thread and returns its id."""
    if not is_profiling():
        return None
    scope_id = next(_ids)
    _shim.library().protond_scope_enter(name.encode())
    _stack().append((scope_id, name))
    try:
        _add_metrics(metrics)
    except (TypeError, ValueError):
        exit_scope(name)
        raise
    return scope_id


def exit_scope(name=None, *, metrics=None):
    """Closes the innermost scope (which must be `name` when given) and returns its id."""
    if not is_profiling():
        return None
    stack = _stack()
    if not stack:
        raise ValueError("exit_scope: no scope is open on this thread")
    scope_id, innermost = stack[-1]
    if name is not None and name != innermost:
        raise ValueError(f"Scope name mismatch: {name} != {innermost}")  # Proton's words
    try:
        _add_metrics(metrics)
    finally:
        stack.pop()
        _shim.library().protond_scope_exit(innermost.encode())
    return scope_id


class scope:
    """`with scope(name, metrics):` or `@scope(name, metrics)`."""

    def __init__(self, name, metrics=None):
        self.name = name
        self.metrics = metrics
        self.id = None

    def __enter__(self):
        self.id = enter_scope(self.name, metrics=self.metrics)
        return self

    def __exit__(self, *exc_info):
        exit_scope(self.name)
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with type(self)(self.name, self.metrics):
                return func(*args, **kwargs)

        return wrapper


class cpu_timed_scope(scope):
    """A scope that also records the CPU time spent in it as the exclusive metric
    `cpu_time (ns)` (measured with perf_counter_ns), the whole time in it as in Proton 3.6
    (nested scopes' time included); the metric name `cpu_time` is reserved."""

    def __init__(self, name, metrics=None):
        if metrics and "cpu_time" in metrics:
            raise ValueError("The metric name 'cpu_time' is reserved.")  # Proton's words
        super().__init__(name, metrics)
        self.start_ns = 0

    def __enter__(self):
        self.start_ns = time.perf_counter_ns()
        return super().__enter__()

    def __exit__(self, *exc_info):
        elapsed_ns = time.perf_counter_ns() - self.start_ns
        exit_scope(self.name, metrics={_CPU_TIME + " (exc)": elapsed_ns})
        return False
