"""Hypothesis over hostile DxDispatch models, run by tests/test_hostile_harness.py in a
subprocess whose address space allows 1 GiB more than it holds after its imports: every
model must load and run, or be refused with a dmljax ArgumentError; no other exception,
no abort, no allocation of more than 1 GiB. Prints the counts as JSON.

The models are a small TILE model with one hostile change each: sizes and counts up to
2**64 and beyond, binding offsets and element sizes of every JSON type, values nested
deeply, integers of thousands of digits, unclosed comments, files in UTF-16 or Latin-1,
initial values from devices, folders, missing files and .npy headers that lie, and
writeFile targets and dimensions that no file system or array takes.

    HOSTILE_EXAMPLES=500 python tests/hostile_models.py
"""

import copy
import json
import os
import pathlib
import resource
import tempfile

import hypothesis
import numpy as np
from hypothesis import strategies as st

import dmljax as dml
from dmljax.errors import ArgumentError

GIB = 2**30
NUMBERS = st.one_of(
    st.integers(-2, 8),
    st.sampled_from([2**31, 2**32 - 1, 2**32, 2**33, 2**40, 2**63, 2**64 - 1, 2**64, -(2**63)]),
    st.sampled_from([0.5, -1.0, 1e300, "1", "abc", None, True, [], {}]),
)
BASE = {
    "resources": {
        "A": {"initialValuesDataType": "FLOAT32", "initialValues": [1, 2, 3]},
        "Out": {"initialValuesDataType": "FLOAT32", "initialValues": {"valueCount": 6, "value": 0}},
    },
    "dispatchables": {
        "tile": {"type": "TILE", "desc": {
            "InputTensor": {"DataType": "FLOAT32", "Sizes": [3]},
            "OutputTensor": {"DataType": "FLOAT32", "Sizes": [6]},
            "RepeatsCount": 1, "Repeats": [2]}},
    },
    "commands": [
        {"type": "dispatch", "dispatchable": "tile",
         "bindings": {"InputTensor": "A", "OutputTensor": "Out"}},
        {"type": "print", "resource": "Out"},
        {"type": "writeFile", "resource": "Out", "targetPath": "out.npy", "dimensions": [6]},
    ],
}  # fmt: skip
SOURCES = ["/dev/zero", ".", "missing.bin", "lie.npy", "small.bin", "model.json"]
TARGETS = [None, "", "a\0b.bin", ".", "model.json/x.bin", "deep/er/out.npy", "out.bin", 7]
counts = {"models": 0, "ran": 0, "refused": 0}
_ROOTS = {"resources", "dispatchables", "commands", "model", "source"}


def _set(model, path, value):
    """``model`` with the field at ``path`` (keys and indices) set to ``value``."""
    *parents, last = path
    target = model
    for key in parents:
        target = target[key]
    if value is _ABSENT:
        target.pop(last, None)
    else:
        target[last] = value


_ABSENT = object()
_BINDING = ("commands", 0, "bindings", "InputTensor")
_WRITE = ("commands", 2)


@st.composite
def changes(draw):
    """One hostile change: (path, value), or ("text", how) for a change of the text."""
    kind = draw(st.sampled_from(["size", "count", "source", "binding", "write", "dims",
                                 "nesting", "digits", "encoding", "comments",
                                 "shape"]))  # fmt: skip
    if kind == "size":
        return ("resources", "A", "sizeInBytes"), draw(NUMBERS)
    if kind == "count":
        return ("resources", "Out", "initialValues", "valueCount"), draw(NUMBERS)
    if kind == "source":
        return ("resources", "A", "initialValues"), {"sourcePath": draw(st.sampled_from(SOURCES))}
    if kind == "binding":
        key = draw(st.sampled_from(["elementOffset", "elementSizeInBytes"]))
        return _BINDING, {"name": "A", key: draw(NUMBERS)}
    if kind == "write":
        target = draw(st.sampled_from(TARGETS))
        return (*_WRITE, "targetPath"), _ABSENT if target is None else target
    if kind == "dims":
        return (*_WRITE, "dimensions"), draw(st.one_of(NUMBERS, st.lists(NUMBERS, max_size=3)))
    if kind == "nesting":
        depth = draw(st.sampled_from([10, 1_000, 100_000]))
        return ("text", "nesting"), depth
    if kind == "digits":
        return ("text", "digits"), draw(st.sampled_from([100, 5_000, 50_000]))
    if kind == "comments":  # unclosed: a stripper that rescans from each is quadratic
        return ("text", "comments"), draw(st.sampled_from([1, 100, 30_000]))
    if kind == "encoding":
        return ("text", "encoding"), draw(st.sampled_from(["utf-16", "latin-1", "utf-8-sig"]))
    return ("resources",), draw(st.sampled_from([[1], "x", None, {"A": 1}]))


def _files(folder):
    (folder / "small.bin").write_bytes(bytes(12))
    with (folder / "lie.npy").open("wb") as f:
        np.lib.format.write_array_header_1_0(
            f, {"descr": "<f4", "fortran_order": False, "shape": (2**40,)}
        )
        f.write(bytes(16))


def _text(change):
    """The model's text and its encoding with ``change`` made."""
    path, value = change
    model = copy.deepcopy(BASE)
    encoding = "utf-8"
    if path[0] != "text":
        _set(model, path, value)
        return json.dumps(model), encoding
    text = json.dumps(model)
    if path[1] == "nesting":
        return text.replace('"Repeats": [2]', f'"Repeats": {"[" * value}2{"]" * value}'), encoding
    if path[1] == "digits":
        return text.replace('"RepeatsCount": 1', f'"RepeatsCount": {"9" * value}'), encoding
    if path[1] == "comments":
        return text[:-1] + "/* " * value + "}", encoding
    return text.replace('"Out"', '"Ø"'), value


SETTINGS = hypothesis.settings(
    max_examples=int(os.environ.get("HOSTILE_EXAMPLES", "100")),
    deadline=None,
    database=None,
    derandomize=os.environ.get("HOSTILE_RANDOM") is None,  # CI sees the same examples
    suppress_health_check=[hypothesis.HealthCheck.too_slow],
)


@SETTINGS
@hypothesis.given(changes())
def hostile_models(change):
    counts["models"] += 1
    text, encoding = _text(change)
    with tempfile.TemporaryDirectory() as name:
        folder = pathlib.Path(name)
        _files(folder)
        path = folder / "model.json"
        path.write_bytes(text.encode(encoding))
        try:
            dml.load_dxdispatch(path).run()
        except ArgumentError as caught:
            refusal = caught
        else:
            counts["ran"] += 1
            return
    # Named by where in the model it is: a JSON path, or the file as a whole.
    assert refusal.op == "load_dxdispatch", refusal
    root = refusal.field.split(".")[0].split("[")[0]
    assert root in _ROOTS or refusal.field == str(path), refusal
    counts["refused"] += 1


def _limit_address_space(extra):
    """At most ``extra`` bytes more address space than the process holds now."""
    with open("/proc/self/status") as status:
        held = next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmSize"))
    resource.setrlimit(resource.RLIMIT_AS, (held + extra, held + extra))


if __name__ == "__main__":
    # JAX's backend starts before the limit; in a scratch folder, where its writeFile lands.
    with tempfile.TemporaryDirectory() as scratch:
        home = os.getcwd()
        os.chdir(scratch)
        dml.load_dxdispatch(json.dumps(BASE)).run()
        os.chdir(home)
    _limit_address_space(GIB)
    hostile_models()
    print(json.dumps(counts))
