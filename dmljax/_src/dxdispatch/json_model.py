"""DxDispatch's JSON as its parser reads it: comments and trailing commas, enum names
full or short, and the error every refusal of a model raises."""

from __future__ import annotations

import json
import re
from typing import Any

from dmljax._src.dtypes import DataType
from dmljax.errors import InvalidArgumentError

__all__ = [
    "OP",
    "enum_name",
    "model_error",
    "parse_data_type",
    "parse_model",
    "pascal_case",
    "snake_case",
]

OP = "load_dxdispatch"


def model_error(
    where: str, expected: str, given: Any, hint: str | None = None
) -> InvalidArgumentError:
    return InvalidArgumentError(OP, where, expected, given, hint=hint)


_COMMENTS = re.compile(r'"(?:\\.|[^"\\])*"|//[^\n]*|/\*.*?\*/', re.S)
_TRAILING_COMMAS = re.compile(r'"(?:\\.|[^"\\])*"|,(?=\s*[}\]])')


def _strict_json(text: str) -> str:
    """``text`` without the comments and trailing commas DxDispatch's parser allows
    (strings kept as they are)."""

    def keep(match: re.Match[str]) -> str:
        token = match.group(0)
        return token if token.startswith('"') else ""

    return _TRAILING_COMMAS.sub(keep, _COMMENTS.sub(keep, text))


def parse_model(text: str, where: str) -> Any:
    try:
        return json.loads(_strict_json(text))
    except json.JSONDecodeError as error:
        raise model_error(where, "a JSON model", f"{error.msg} at line {error.lineno}") from None


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


def snake_case(name: str) -> str:
    """A C field name as the desc's: ``ToNodeIndex`` is ``to_node_index``."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


def pascal_case(name: str) -> str:
    """A desc's field name as C's: ``to_node_index`` is ``ToNodeIndex``."""
    return "".join(part.title() for part in name.split("_"))
