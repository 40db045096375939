"""DxDispatch models: DirectML's own examples, models of the same format for the other
operators, and each refusal naming where in the model it is."""

import json
import pathlib

import numpy as np
import pytest

import dmljax as dml

MODELS = pathlib.Path(__file__).parent / "data" / "dxdispatch"
InvalidArgumentError = dml.errors.InvalidArgumentError


@pytest.mark.parametrize(
    ("name", "printed"),
    [
        # microsoft/DirectML's DxDispatch/models, verbatim; the values DirectML's rules give.
        ("dml_join.json", ["Resource 'Out': 1, 2, 3, 100, 115, 5, 6, 7, 8, 9"]),
        ("dml_slice.json", ["Resource 'output': 7, 9, 12, 14, 17, 19"]),
        (
            "dml_split.json",
            ["Resource 'Out1': 1, 2", "Resource 'Out2': 3, 4", "Resource 'Out3': 5, 6"],
        ),
    ],
)
def test_directmls_example_models_print_what_directml_computes(name, printed):
    assert dml.load_dxdispatch(MODELS / name).run() == printed


def model(resources, dispatchable, bindings, prints=("Out",)):
    return json.dumps({
        "resources": resources,
        "dispatchables": {"op": dispatchable},
        "commands": [
            {"type": "dispatch", "dispatchable": "op", "bindings": bindings},
            *({"type": "print", "resource": name} for name in prints),
        ],
    })  # fmt: skip


def f32(values):
    return {"initialValuesDataType": "FLOAT32", "initialValues": values}


def zeros(count, data_type="FLOAT32"):
    return {"initialValuesDataType": data_type, "initialValues": {"valueCount": count, "value": 0}}


def tensor(*sizes, data_type="FLOAT32"):
    return {"DataType": data_type, "Sizes": list(sizes)}


OPERATOR_MODELS = {
    "gather": (
        model(
            {"X": f32([1, 2, 3, 4]), "Out": zeros(3),
             "I": {"initialValuesDataType": "INT32", "initialValues": [3, -1, 0]}},
            {"type": "DML_OPERATOR_GATHER", "desc": {
                "InputTensor": tensor(4), "IndicesTensor": tensor(3, data_type="INT32"),
                "OutputTensor": tensor(3), "Axis": 0, "IndexDimensions": 1}},
            {"InputTensor": "X", "IndicesTensor": "I", "OutputTensor": "Out"},
        ),
        ["Resource 'Out': 4, 4, 1"],
    ),
    "scatter": (
        model(
            {"X": f32([1, 2, 3, 4]), "U": f32([10, 20]), "Out": zeros(4),
             "I": {"initialValuesDataType": "INT32", "initialValues": [2, 0]}},
            {"type": "SCATTER", "desc": {
                "InputTensor": tensor(4), "IndicesTensor": tensor(2, data_type="INT32"),
                "UpdatesTensor": tensor(2), "OutputTensor": tensor(4), "Axis": 0}},
            {"InputTensor": "X", "IndicesTensor": "I", "UpdatesTensor": "U", "OutputTensor": "Out"},
        ),
        ["Resource 'Out': 20, 2, 10, 4"],
    ),
    "tile": (
        model(
            {"X": f32([1.5, "nan", "-inf"]), "Out": zeros(6)},
            {"type": "TILE", "desc": {
                "InputTensor": {"Type": "DML_TENSOR_TYPE_BUFFER", "Desc": tensor(3)},
                "OutputTensor": tensor(6), "RepeatsCount": 1, "Repeats": [2]}},
            {"InputTensor": "X", "OutputTensor": "Out"},
        ),
        ["Resource 'Out': 1.5, nan, -inf, 1.5, nan, -inf"],
    ),
    "padding": (
        model(
            {"X": f32([1, 2, 3]), "Out": zeros(6)},
            {"type": "DML_OPERATOR_PADDING", "desc": {
                "InputTensor": tensor(3), "OutputTensor": tensor(6),
                "PaddingMode": "DML_PADDING_MODE_REFLECTION", "PaddingValue": 0,
                "DimensionCount": 1, "StartPadding": [2], "EndPadding": [1]}},
            {"InputTensor": "X", "OutputTensor": "Out"},
        ),
        ["Resource 'Out': 3, 2, 1, 2, 3, 2"],
    ),
}  # fmt: skip


@pytest.mark.parametrize("name", OPERATOR_MODELS)
def test_models_of_the_same_format_run_every_family_operator(name):
    text, printed = OPERATOR_MODELS[name]
    assert dml.load_dxdispatch(text).run() == printed


def test_comments_trailing_commas_offsets_and_sub_range_bindings():
    text = """{
      // a comment, and /* another */ one
      "resources": {
        "A": {"initialValuesDataType": "INT32", "initialValues": {"valueCount": 4,
              "valueStart": 10, "valueDelta": 5}, "initialValuesOffsetInBytes": 4,
              "sizeInBytes": 20,},
        "Out": {"initialValuesDataType": "INT32", "initialValues": [0, 0, 0, 0, 0, 0],},
      },
      "dispatchables": {"tile": {"type": "TILE", "desc": {
        "InputTensor": {"DataType": "INT32", "Sizes": [3]},
        "OutputTensor": {"DataType": "INT32", "Sizes": [6]}, "RepeatsCount": 1,
        "Repeats": [2]}}},
      "commands": [
        {"type": "dispatch", "dispatchable": "tile", "bindings": {
          "InputTensor": {"name": "A", "elementOffset": 2}, "OutputTensor": "Out"}},
        {"type": "print", "resource": "Out"},
        {"type": "print", "resource": "A"},
      ]
    }"""
    # A's bytes: 0, then 10, 15, 20, 25; elementOffset 2 reads from 15.
    assert dml.load_dxdispatch(text).run() == [
        "Resource 'Out': 15, 20, 25, 15, 20, 25",
        "Resource 'A': 0, 10, 15, 20",
    ]


def test_write_file_writes_npy_and_raw_bytes(tmp_path):
    spec = json.loads(OPERATOR_MODELS["gather"][0])
    spec["commands"] += [
        {"type": "writeFile", "resource": "Out", "targetPath": "out.npy", "dimensions": [3]},
        {"type": "writeFile", "resource": "Out", "targetPath": "out.bin"},
    ]
    path = tmp_path / "gather.json"
    path.write_text(json.dumps(spec))
    dml.load_dxdispatch(path).run()
    np.testing.assert_array_equal(np.load(tmp_path / "out.npy"), [4, 4, 1])
    assert (tmp_path / "out.bin").read_bytes() == np.array([4, 4, 1], np.float32).tobytes()


_DELETE = object()
OP, BIND = ("dispatchables", "op"), ("commands", 0, "bindings")
REFUSALS = {
    "hlsl": ((*OP, "type"), "hlsl", "dispatchables.op.type", "HLSL"),
    "gemm": ((*OP, "type"), "DML_OPERATOR_GEMM", "dispatchables.op.type", "implements"),
    "owned by DirectML": ((*OP, "desc", "InputTensor", "Flags"), "OWNED_BY_DML",
                          "dispatchables.op.desc.InputTensor.Flags", "initialization"),
    "the operator's rule": ((*OP, "desc", "Axis"), 3, "dispatchables.op.desc.axis", "axis"),
    "no such field": ((*OP, "desc", "Bogus"), 1, "dispatchables.op.desc.Bogus", "C struct"),
    "small buffer": (("resources", "X", "sizeInBytes"), 4, "resources.X.sizeInBytes",
                     "at least 16"),
    "deferred": (("resources", "X", "initialValues"), "deferred", "resources.X.initialValues",
                 "ONNX"),
    "two resources": ((*BIND, "IndicesTensor"), ["I", "I"], "commands[0].bindings.IndicesTensor",
                      "1 resources"),
    "unbound": ((*BIND, "OutputTensor"), _DELETE, "commands[0].bindings.OutputTensor",
                "1 resources"),
    "no such resource": (("commands", 1, "resource"), "nope", "commands[1].resource",
                         "a resource name"),
    "no such command": (("commands", 1, "type"), "hlslDispatch", "commands[1].type",
                        "dispatch, print or writeFile"),
    "an HLSL binding": ((*BIND, "InputTensor"), {"name": "X", "format": "R32_FLOAT"},
                        "commands[0].bindings.InputTensor.format", "HLSL"),
    "past the end": ((*BIND, "InputTensor"), {"name": "X", "elementOffset": 2},
                     "commands[0].bindings.InputTensor[0]", "at least 24 bytes"),
}  # fmt: skip


@pytest.mark.parametrize("refusal", REFUSALS)
def test_each_refusal_names_where_in_the_model(refusal):
    path, value, where, fragment = REFUSALS[refusal]
    spec = json.loads(OPERATOR_MODELS["gather"][0])
    parent = spec
    for key in path[:-1]:
        parent = parent[key]
    if value is _DELETE:
        del parent[path[-1]]
    else:
        parent[path[-1]] = value
    with pytest.raises(InvalidArgumentError) as e:
        dml.load_dxdispatch(json.dumps(spec)).run()
    assert e.value.field == where
    assert fragment in str(e.value)


def test_a_missing_or_broken_file_is_one_clean_error(tmp_path):
    with pytest.raises(InvalidArgumentError, match="No such file"):
        dml.load_dxdispatch(tmp_path / "missing.json")
    broken = tmp_path / "broken.json"
    broken.write_text('{"resources": {,}')
    with pytest.raises(InvalidArgumentError, match="a JSON model"):
        dml.load_dxdispatch(broken)
