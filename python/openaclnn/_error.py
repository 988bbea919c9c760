"""openaclnn.Error and its shape and dtype kinds: what the C API (or the binding, before reaching
it) rejected."""
import re

# aclGetRecentErrMsg()'s header line: "[PID: 9283] 2026-12-01-17:31:13.265.794 Title(EZ1001): "
# (an internal error's is prefixed by its code); the reason follows it.
_HEADER = re.compile(r"^(?:\S+: Internal error!\n\S*)?\[PID: \d+\] \S+ [^()\n]*\([^()\n]*\):\s*")


class Error(RuntimeError):
    """A call the library rejected.

    ``status`` is the aclnn status code (e.g. 161002 for an invalid parameter); ``str(e)`` and
    ``e.message`` are the reason alone; ``e.raw`` is the library's full text
    (``aclGetRecentErrMsg()``: the log header and any trace-back lines), or the reason itself for
    what the binding rejected before calling the library.
    """

    def __init__(self, status, message):
        super().__init__(status, message)
        self.status = status
        self.raw = message
        self.message = _reason(message)

    def __str__(self):
        return self.message


class ShapeError(Error, ValueError):
    """A shape that does not fit (torch raises ValueError for the same mistake)."""


class DtypeError(Error, TypeError):
    """A dtype the ops do not take, or operands whose dtypes differ (TypeError, as for a type)."""


class ArgumentError(Error, ValueError):
    """An argument value the functions do not take: an unknown reduction string (torch raises
    ValueError for it)."""


class TargetError(Error, IndexError):
    """A class index outside [0, C) that is not ignore_index (torch raises IndexError): the
    library reports it when the op runs (ACL_ERROR_RT_AICORE_EXCEPTION, 507015), naming the
    first such position and its value."""


# The status of work that failed where it ran (a stream's kernel fault).
_KERNEL_FAULT = 507015

# Shown (and pickled, e.g. from DataLoader workers) as openaclnn.Error etc., where users find them.
for _kind in (Error, ShapeError, DtypeError, ArgumentError, TargetError):
    _kind.__module__ = "openaclnn"


def _reason(text):
    """The newest message of aclGetRecentErrMsg()'s text, without its header and trace-back."""
    match = _HEADER.match(text)
    if match is None:
        return text.strip()
    return text[match.end():].split("\n", 1)[0].strip()


def error(status, message):
    """The Error of the most specific kind for a rejected call: shapes and dtypes are told apart
    by what the reason names (the C API gives both the same status)."""
    reason = _reason(message)
    if status == _KERNEL_FAULT:
        return TargetError(status, message)
    if "dtype" in reason or "DT_" in reason:
        return DtypeError(status, message)
    if "shape" in reason or "broadcast" in reason:
        return ShapeError(status, message)
    return Error(status, message)
