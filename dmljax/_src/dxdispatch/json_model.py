"""DxDispatch's JSON as its parser reads it: comments and trailing commas, enum names
full or short, and the error every refusal of a model raises."""

from __future__ import annotations

import json
import re
from typing import Any

from dmljax._src import rules
from dmljax._src.c_names import pascal_case, snake_case
from dmljax._src.dtypes import DataType
from dmljax.errors import InvalidArgumentError

__all__ = [
    "OP",
    "enum_name",
    "json_uint",
    "model_error",
    "parse_data_type",
    "parse_model",
    "pascal_case",
    "require_fits",
    "snake_case",
]

OP = "load_dxdispatch"

# Loading a resource holds up to this many copies of its bytes at once: its values, their
# bytes, the buffer and the devices' copy.
_COPIES = 4


def require_fits(nbytes: int, where: str, given: str) -> None:
    """Refuses a buffer whose copies exceed the devices' memory, before anything is
    allocated: a model of a few bytes can ask for any size."""
    rules.require_fits_memory(
        nbytes * _COPIES, op=OP, field=where, given=f"{given}, {_COPIES} copies while loading"
    )


def model_error(
    where: str, expected: str, given: Any, hint: str | None = None
) -> InvalidArgumentError:
    return InvalidArgumentError(OP, where, expected, given, hint=hint)


# A string or a comment runs to its end or, unclosed, to the end of the text: a pattern that
# needed the end would scan the rest of the text from every opening and fail, quadratic in
# the openings (60 KB of unclosed /* took 8 s).
_STRING = r'"(?:\\.|[^"\\])*(?:"|\Z)'
_COMMENTS = re.compile(_STRING + r"|//[^\n]*|/\*.*?(?:\*/|\Z)", re.S)
_TRAILING_COMMAS = re.compile(_STRING + r"|,(?=\s*[}\]])")


def _strict_json(text: str, where: str) -> str:
    """``text`` without the comments and trailing commas DxDispatch's parser allows
    (strings kept as they are), in time linear in the text."""

    def keep(match: re.Match[str]) -> str:
        token = match.group(0)
        if token.startswith("/*") and (len(token) < 4 or not token.endswith("*/")):
            raise model_error(where, "a JSON model", "a /* comment that is never closed")
        return token if token.startswith('"') else ""

    return _TRAILING_COMMAS.sub(keep, _COMMENTS.sub(keep, text))


def parse_model(text: str, where: str) -> Any:
    """The JSON value of a model's text; any text that is no JSON model (too deeply
    nested, an integer of more digits than Python converts) is an error naming ``where``."""
    try:
        try:  # most models are strict JSON, which stripping leaves as it is
            return json.loads(text)
        except json.JSONDecodeError:
            return json.loads(_strict_json(text, where))
    except json.JSONDecodeError as error:
        raise model_error(where, "a JSON model", f"{error.msg} at line {error.lineno}") from None
    except RecursionError:
        raise model_error(where, "a JSON model", "values nested too deeply") from None
    except ValueError as error:  # int's digit limit (sys.get_int_max_str_digits)
        if isinstance(error, InvalidArgumentError):
            raise
        raise model_error(where, "a JSON model", str(error).split(";")[0]) from None


def json_uint(value: Any, where: str, bits: int = 64) -> int:
    """A model's UINT field of ``bits`` bits: a JSON integer in ``[0, 2**bits)``, not a
    bool, a float (``0.5`` would be truncated) or a string.

    >>> json_uint(3, "x")
    3
    """
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2**bits:
        raise model_error(
            where, f"a UINT{bits} (a JSON integer from 0 below 2**{bits})", repr(value)
        )
    return value


def enum_name(value: Any, prefix: str, where: str) -> str:
    """A DxDispatch enum value, full (``DML_TENSOR_DATA_TYPE_FLOAT32``) or short (``FLOAT32``)."""
    if not isinstance(value, str):
        raise model_error(where, f"a {prefix}* name", repr(value))
    return value.removeprefix(prefix)


def parse_data_type(value: Any, where: str) -> DataType:
    name = enum_name(value, "DML_TENSOR_DATA_TYPE_", where)
    if name not in DataType.__members__:
        raise model_error(where, "a DML_TENSOR_DATA_TYPE", value)
    return DataType[name]
