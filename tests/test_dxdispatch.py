"""DxDispatch models: DirectML's own examples, models of the same format for the other
operators, and each refusal naming where in the model it is."""

import dataclasses
import json
import pathlib
import re
import time
import tracemalloc

import numpy as np
import pytest

import dmljax as dml
from dmljax._src import rules
from dmljax._src.c_names import pascal_case
from dmljax._src.checking import doc_examples
from dmljax._src.contract import Role, bound_tensors, tensor_fields
from dmljax._src.enums import DmlEnum
from tests import helpers

MODELS = pathlib.Path(__file__).parent / "data" / "dxdispatch"
InvalidArgumentError = dml.errors.InvalidArgumentError


def _printed(name: str, values: np.ndarray) -> str:
    """DxDispatch's print of a float resource: the shortest form of each value."""
    return f"Resource '{name}': " + ", ".join(f"{float(v):g}" for v in np.ravel(values))


_NINE_AS_3X3 = np.arange(1.0, 10.0).reshape(3, 3)
_HALF_WINDOW_SUMS = np.array(
    [0.5 * _NINE_AS_3X3[i : i + 2, j : j + 2].sum() for i in range(2) for j in range(2)]
)


def _bilinear_doubled(image):
    """``image`` twice as tall and wide, each output pixel interpolated at its center's
    input coordinate ``(y + 0.5) / 2 - 0.5`` (clamped at the edges, as np.interp does)."""
    rows, cols = image.shape
    ys = (np.arange(2 * rows) + 0.5) / 2 - 0.5
    xs = (np.arange(2 * cols) + 0.5) / 2 - 0.5
    across = np.array([np.interp(xs, np.arange(cols), row) for row in image])
    return np.array([np.interp(ys, np.arange(rows), column) for column in across.T]).T


def _matmul_add():
    """dmlSerializedGraph_matmul_add.json's output: model_input (five 1.5s) times the
    5 x 5 constant beside the graph, plus the 5-element one, read with NumPy."""
    b = np.fromfile(MODELS / "matmul_add" / "matmul_b_tensor.bin", np.float32).reshape(5, 5)
    c = np.fromfile(MODELS / "matmul_add" / "add_b_tensor.bin", np.float32)
    return np.full((1, 5), 1.5) @ b.astype(np.float64) + c


def _rnn_one_step():
    """dml_rnn.json's output: inputs 1..32 as 8 x 4, weights 1 + 0.4 i as 2 x 5 x 4, in
    float32 as the resources hold them; the single output (direction, batch, unit)."""
    x = np.arange(1, 33, dtype=np.float32).reshape(8, 4)
    w = (np.float32(1) + np.arange(40, dtype=np.float32) * np.float32(0.4)).reshape(2, 5, 4)
    return np.einsum("dhi,bi->dbh", w.astype(np.float64), x.astype(np.float64))


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
        (
            "dml_cumulative_product.json",
            ["Resource 'Out': " + ", ".join(f"{v:g}" for v in np.cumprod([2.0, 4.0, 8.0, 3.0]))],
        ),
        (
            "dml_gemm.json",  # A (3x1) x B (1x3) + C, C all 2s
            [_printed("output", np.outer([1.0, 2.0, 3.0], [4.0, 5.0, 6.0]) + 2)],
        ),
        (
            # A one-node graph, B owned by DML; ALLOW_HALF_PRECISION_COMPUTATION allows a
            # faster precision, which ones sum exactly in: 32 x 32 ones by 32 x 32 ones.
            "dml_gemm_graph.json",
            [_printed("output", np.ones((32, 32)) @ np.ones((32, 32)))],
        ),
        (
            # 2x2 windows of 1..9 (3x3) times 0.5: half of each window's sum.
            "dml_convolution_2d.json",
            [_printed("output", _HALF_WINDOW_SUMS)],
        ),
        (
            # 27 ones, 2x2x2 windows of a 0.5 filter: 8 * 0.5 at each of the 8 positions.
            "dml_convolution_3d.json",
            [_printed("output", np.full(8, 8 * 0.5))],
        ),
        (
            # 3.2 + i * 1.5 for five elements, in float32 as the operator computes it.
            "dml_fill_value_sequence.json",
            [_printed("Out", np.float32(3.2) + np.arange(5, dtype=np.float32) * np.float32(1.5))],
        ),
        (
            # 1 to 4 as 2x2, bilinear at half-pixel centers (y + 0.5) / 2 - 0.5, 4x4.
            "dml_upsample_2d.json",
            [_printed("output", _bilinear_doubled(np.arange(1.0, 5.0).reshape(2, 2)))],
        ),
        (
            # One step of a bidirectional RNN from a zero state: each direction's ELU of
            # W x (ELU is the identity on these positive sums); R never applies.
            "dml_rnn.json",
            [_printed("output", _rnn_one_step())],
        ),
        (
            # onnxruntime's serialized DirectML graph of MatMul + Add (one GEMM node whose C
            # is the addend), its constants in .bin files beside it.
            "dmlSerializedGraph_matmul_add.json",
            [_printed("model_output", _matmul_add())],
        ),
        (
            "dml_reduce.json",  # DxDispatch's README prints its output: 6, 15, 24
            [
                "Resource 'input': " + ", ".join(f"{v:g}" for v in np.arange(1.0, 10.0)),
                "Resource 'output': "
                + ", ".join(f"{v:g}" for v in np.arange(1.0, 10.0).reshape(3, 3).sum(axis=1)),
            ],
        ),
    ],
)
def test_directmls_example_models_print_what_directml_computes(name, printed):
    assert dml.load_dxdispatch(MODELS / name).run() == printed


def test_directmls_image_model_writes_the_grayscale_image(tmp_path):
    # image_io.json: chihuahua.jpg (1024x1024 RGB) scaled to 512x512, each component / 255,
    # a 1x1 convolution with the luma weights, written as an 8-bit grayscale .png (clamped
    # to [0, 1], times 255, truncated). The scaling is Pillow's bicubic (DxDispatch's is
    # WIC's high-quality cubic); the arithmetic is computed here in float64.
    image = pytest.importorskip("PIL.Image")
    for name in ("image_io.json", "chihuahua.jpg"):
        (tmp_path / name).write_bytes((MODELS / name).read_bytes())
    assert dml.load_dxdispatch(tmp_path / "image_io.json").run() == []
    with image.open(tmp_path / "output.png") as written:
        assert (written.mode, written.size) == ("L", (512, 512))
        got = np.asarray(written).astype(np.int64)
    with image.open(MODELS / "chihuahua.jpg") as source:
        scaled = source.convert("RGB").resize((512, 512), image.Resampling.BICUBIC)
    rgb = np.asarray(scaled).astype(np.float32) / np.float32(255)
    weights = np.array([0.2989, 0.5870, 0.1140], np.float32).astype(np.float64)
    levels = np.clip(rgb.astype(np.float64) @ weights, 0, 1) * 255
    want = np.floor(levels).astype(np.int64)
    # float32 sums in another order may cross an integer level only where the float64 one
    # is within float32's rounding of it.
    near = np.abs(levels - np.round(levels)) < 1e-4
    assert np.array_equal(got[~near], want[~near])
    assert np.all(np.abs(got - want)[near] <= 1)


def test_an_image_needs_pillow_and_says_which_extra(tmp_path, monkeypatch):
    import sys

    for name in ("image_io.json", "chihuahua.jpg"):
        (tmp_path / name).write_bytes((MODELS / name).read_bytes())
    monkeypatch.setitem(sys.modules, "PIL", None)  # import PIL raises ImportError
    error = helpers.refused(lambda: dml.load_dxdispatch(tmp_path / "image_io.json"),
                            field="resources.input.initialValues.sourcePath",
                            match="image extra")  # fmt: skip
    assert 'pip install "dmljax[image]"' in str(error)


IMAGE_REFUSALS = {
    "no resampleSize": ({"resampleSize": None}, "resources.input.resampleSize", "[1, C, H, W]"),
    "one channel": ({"resampleSize": [1, 1, 8, 8]}, "resources.input.resampleSize", "C 3 (RGB)"),
    "a batch of two": ({"resampleSize": [2, 3, 8, 8]}, "resources.input.resampleSize", "[1, C"),
    "another mode": ({"resampleMode": "crop"}, "resources.input.resampleMode", "'scale'"),
    "integers": ({"initialValuesDataType": "INT32"}, "resources.input.initialValuesDataType",
                 "FLOAT32 or FLOAT16"),
    "no image in the file": ({"initialValues": {"sourcePath": "broken.jpg"}},
                             "resources.input.initialValues.sourcePath", "a readable .jpg"),
}  # fmt: skip


@pytest.mark.parametrize("refusal", IMAGE_REFUSALS)
def test_each_image_refusal_names_where_in_the_model(refusal, tmp_path):
    pytest.importorskip("PIL.Image")
    changes, where, fragment = IMAGE_REFUSALS[refusal]
    model = json.loads((MODELS / "image_io.json").read_text())
    for key, value in changes.items():  # None: the key left out
        model["resources"]["input"][key] = value
        if value is None:
            del model["resources"]["input"][key]
    (tmp_path / "chihuahua.jpg").write_bytes((MODELS / "chihuahua.jpg").read_bytes())
    (tmp_path / "broken.jpg").write_bytes(b"\xff\xd8 not a jpeg")
    (tmp_path / "m.json").write_text(json.dumps(model))
    helpers.refused(lambda: dml.load_dxdispatch(tmp_path / "m.json"), field=where,
                    match=re.escape(fragment))  # fmt: skip


_A, _B = np.array([1, 2, 3], np.float32), np.array([5, 8, -5], np.float32)
_ONE_TO_SIX = np.arange(1, 7, dtype=np.float32)  # the .npy's and the .dat's values
_NINE = np.arange(-4, 5, dtype=np.float32)
_FIVE = np.arange(1, 6, dtype=np.float16)


@pytest.mark.parametrize(
    ("name", "printed"),
    [
        # microsoft/DirectML's DxDispatch/models, verbatim; each value computed here from
        # the model's data and the page's formula.
        ("dml_element_wise_add.json", _printed("Out", _A + _B)),
        # ADD1 with a fused ELU of alpha 0.5: 0.5 * (exp(x) - 1) below 0, in float64.
        (
            "dml_element_wise_add1.json",
            _printed(
                "Out",
                np.where(_A + _B >= 0, _A + _B, 0.5 * np.expm1(np.float64(_A + _B))).astype(
                    np.float32
                ),
            ),
        ),
        ("dml_owned_tensors.json", _printed("Out", _A + _B)),  # A bound at initialization
        ("dml_element_wise_identity.json", _printed("Out", _A * 2 + 10)),  # its ScaleBias
        ("dml_element_wise_clip.json", _printed("A", np.minimum(2.5, np.maximum(-2.5, _NINE)))),
        ("dml_scalar_union_fp16.json", _printed("output", np.maximum(2, np.minimum(_FIVE, 4)))),
        ("dml_element_wise_add_npy.json", _printed("Out", _ONE_TO_SIX + _ONE_TO_SIX)),
    ],
)
def test_directmls_element_wise_models_print_what_directml_computes(name, printed, tmp_path):
    # Run from a copy: dml_element_wise_add_npy.json also writes its output beside itself.
    for path in MODELS.glob(f"{name.removesuffix('.json').removesuffix('_npy')}*"):
        (tmp_path / path.name).write_bytes(path.read_bytes())
    assert dml.load_dxdispatch(tmp_path / name).run() == [printed]
    if name == "dml_element_wise_add_npy.json":
        written = np.load(tmp_path / "dml_element_wise_add_output.npy")
        np.testing.assert_array_equal(written, _ONE_TO_SIX + _ONE_TO_SIX)
        raw = np.fromfile(tmp_path / "dml_element_wise_add_output.dat", np.float32)
        np.testing.assert_array_equal(raw, _ONE_TO_SIX + _ONE_TO_SIX)


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
    spec["resources"]["Out"]["sizeInBytes"] = 16  # one element past the initial values
    spec["commands"] += [
        {"type": "writeFile", "resource": "Out", "targetPath": "out.npy", "dimensions": [3]},
        {"type": "writeFile", "resource": "Out", "targetPath": "whole.npy"},
        {"type": "writeFile", "resource": "Out", "targetPath": "raw/out.bin"},
        {"type": "writeFile", "resource": "Out", "targetPath": "out.txt"},
    ]
    path = tmp_path / "gather.json"
    path.write_text(json.dumps(spec))
    dml.load_dxdispatch(path).run()
    np.testing.assert_array_equal(np.load(tmp_path / "out.npy"), [4, 4, 1])
    # Without dimensions, and as raw bytes, the whole buffer (DxDispatch's Download).
    np.testing.assert_array_equal(np.load(tmp_path / "whole.npy"), [4, 4, 1, 0])
    raw = np.array([4, 4, 1, 0], np.float32).tobytes()
    assert (tmp_path / "raw" / "out.bin").read_bytes() == raw
    assert (tmp_path / "out.txt").read_bytes() == raw


WRITE_FILE_REFUSALS = {
    "no targetPath": ({}, "targetPath", "a file path"),
    "a NUL in the path": ({"targetPath": "out\0.bin"}, "targetPath", "without NUL"),
    "a folder as the file": ({"targetPath": "."}, "targetPath", "a file dmljax can write"),
    "a file as a folder": ({"targetPath": "gather.json/out.bin"}, "targetPath",
                           "a file dmljax can write"),
    "a negative dimension": ({"targetPath": "out.npy", "dimensions": [-1, 2]},
                             "dimensions[0]", "a UINT32"),
    "a fractional dimension": ({"targetPath": "out.npy", "dimensions": [1.5]},
                               "dimensions[0]", "a UINT32"),
    "dimensions not an array": ({"targetPath": "out.npy", "dimensions": "3"},
                                "dimensions", "an array of sizes"),
    "too many elements": ({"targetPath": "out.npy", "dimensions": [2, 3]},
                          "dimensions", "at most 3 elements"),
    "an empty shape too big to count": ({"targetPath": "out.npy",
                                         "dimensions": [0, 2**31, 2**31]},
                                        "dimensions", "a shape NumPy can hold"),
}  # fmt: skip


@pytest.mark.parametrize("refusal", WRITE_FILE_REFUSALS)
def test_write_file_refusals_name_the_field(refusal, tmp_path):
    fields, field, fragment = WRITE_FILE_REFUSALS[refusal]
    spec = json.loads(OPERATOR_MODELS["gather"][0])
    spec["commands"] = [{"type": "writeFile", "resource": "Out", **fields}]
    path = tmp_path / "gather.json"
    path.write_text(json.dumps(spec))
    with pytest.raises(InvalidArgumentError) as e:
        dml.load_dxdispatch(path).run()
    assert e.value.field == f"commands[0].{field}"
    assert fragment in str(e.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["gather.json"]  # nothing written


def test_a_verbose_print_shows_each_element_with_its_index_and_bytes():
    spec = json.loads(OPERATOR_MODELS["gather"][0])
    spec["commands"][1]["verbose"] = True
    spec["resources"]["I"]["initialValues"] = [3, -1, 0, 1, 1, 1, 1, 1, 1, 1, 1]
    spec["commands"].append({"type": "print", "resource": "I", "verbose": True})
    spec["dispatchables"]["op"]["desc"]["IndicesTensor"]["Sizes"] = [3]
    out, indices = dml.load_dxdispatch(json.dumps(spec)).run()
    assert out.splitlines() == [
        "Resource 'Out':", "[0] 4 (0x40800000)", "[1] 4 (0x40800000)", "[2] 1 (0x3F800000)",
    ]  # fmt: skip
    assert indices.splitlines()[:3] == ["Resource 'I':", "[ 0] 3 (0x       3)",
                                        "[ 1] -1 (0xFFFFFFFF)"]  # fmt: skip


_DELETE = object()
OP, BIND = ("dispatchables", "op"), ("commands", 0, "bindings")
REFUSALS = {
    "hlsl": ((*OP, "type"), "hlsl", "dispatchables.op.type", "HLSL"),
    "an operator dmljax lacks": ((*OP, "type"), "DML_OPERATOR_ROI_ALIGN",
                                 "dispatchables.op.type", "implements"),
    "owned, not bound at initialization": ((*OP, "desc", "InputTensor", "Flags"), "OWNED_BY_DML",
                                           "dispatchables.op.bindings.InputTensor",
                                           "1 resources"),
    "a flag DirectML lacks": ((*OP, "desc", "InputTensor", "Flags"), ["NONE", "PACKED"],
                              "dispatchables.op.desc.InputTensor.Flags", "OWNED_BY_DML"),
    "bound at initialization, not owned": ((*OP, "bindings"), {"IndicesTensor": "I"},
                                           "dispatchables.op.bindings.IndicesTensor",
                                           "OWNED_BY_DML input"),
    "an execution flag DirectML lacks": ((*OP, "executionFlags"), ["NONE", "FAST"],
                                         "dispatchables.op.executionFlags", "DISABLE_META"),
    "a compile type DxDispatch lacks": ((*OP, "dmlCompileType"), "DmlCompileFused",
                                        "dispatchables.op.dmlCompileType", "DmlCompileGraph"),
    "no such bind point": ((*BIND, "Bogus"), "X", "commands[0].bindings.Bogus",
                           "a bind point of 'op'"),
    "onnx": ((*OP, "type"), "onnx", "dispatchables.op.type", "ONNX"),
    "a serialized graph of no file": ((*OP, "type"), "dmlSerializedGraph",
                                      "dispatchables.op.sourcePath", "serialized graph"),
    "an image initializer of no file": (("resources", "X", "initialValues"),
                                        {"sourcePath": "x.png"},
                                        "resources.X.initialValues.sourcePath", "a regular file"),
    "an image of two channels written": (("commands", 1), {"type": "writeFile", "resource": "Out",
                                                           "targetPath": "out.png",
                                                           "dimensions": [1, 2, 1, 1]},
                                         "commands[1].dimensions", "C 1 (grayscale)"),
    "an object for an integer": ((*OP, "desc", "Axis"), {"Float16": 1},
                                 "dispatchables.op.desc.Axis", "an integer"),
    "a constant graph node": (("dispatchables", "graph"), {"type": "DML_GRAPH_DESC", "desc": {
                                  "InputCount": 0, "OutputCount": 0,
                                  "Nodes": [{"Type": "DML_GRAPH_NODE_TYPE_CONSTANT"}]}},
                              "dispatchables.graph.desc.Nodes[0].Type", "no constant"),
    "a graph node that is no operator": (("dispatchables", "graph"), {
                                             "type": "dml_graph_desc", "desc": {
                                                 "InputCount": 0, "OutputCount": 0,
                                                 "Nodes": [{"Type": "OPERATOR", "Name": "x"}]}},
                                         "dispatchables.graph.desc.Nodes[0].Name",
                                         "a DirectML operator dispatchable (op)"),
    "the operator's rule": ((*OP, "desc", "Axis"), 3, "dispatchables.op.desc.Axis", "Axis"),
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


def owned_gather(compile_type="DmlCompileOp"):
    """GATHER with its input OWNED_BY_DML, after a dispatch that overwrites that input."""
    spec = json.loads(OPERATOR_MODELS["gather"][0])
    spec["resources"]["Z"] = zeros(4)
    op = spec["dispatchables"]["op"]
    op["desc"]["InputTensor"]["Flags"] = ["DML_TENSOR_FLAG_OWNED_BY_DML"]
    op["bindings"] = {"InputTensor": "X"}
    op["dmlCompileType"] = compile_type
    op["executionFlags"] = ["ALLOW_HALF_PRECISION_COMPUTATION", "DISABLE_META_COMMANDS"]
    spec["dispatchables"]["wipe"] = {
        "type": "TILE",
        "desc": {
            "InputTensor": tensor(4),
            "OutputTensor": tensor(4),
            "RepeatsCount": 1,
            "Repeats": [1],
        },
    }
    del spec["commands"][0]["bindings"]["InputTensor"]
    spec["commands"][:0] = [
        {
            "type": "dispatch",
            "dispatchable": "wipe",
            "bindings": {"InputTensor": "Z", "OutputTensor": "X"},
        }
    ]
    spec["commands"].append({"type": "print", "resource": "X"})
    return spec  # fmt: skip


@pytest.mark.parametrize("compile_type", ["DmlCompileOp", "DmlCompileGraph"])
def test_owned_by_dml_inputs_keep_the_values_bound_at_initialization(compile_type):
    # DirectML copies an OWNED_BY_DML input when the operator is initialized: a later
    # write to the resource does not reach it.
    assert dml.load_dxdispatch(json.dumps(owned_gather(compile_type))).run() == [
        "Resource 'Out': 4, 4, 1",
        "Resource 'X': 0, 0, 0, 0",
    ]
    spec = owned_gather(compile_type)
    spec["commands"][1]["bindings"]["InputTensor"] = "X"
    helpers.refused(
        lambda: dml.load_dxdispatch(json.dumps(spec)).run(),
        field="commands[1].bindings.InputTensor",
        match="OWNED_BY_DML",
    )


def test_dml_compile_graph_is_a_one_node_graph_from_feature_level_2_1():
    spec = json.loads(OPERATOR_MODELS["gather"][0])
    spec["dispatchables"]["op"]["dmlCompileType"] = "DmlCompileGraph"
    assert dml.load_dxdispatch(json.dumps(spec)).run() == OPERATOR_MODELS["gather"][1]
    helpers.refused(
        lambda: dml.load_dxdispatch(json.dumps(spec), feature_level=dml.FeatureLevel.FL_2_0),
        field="dispatchables.op.feature_level",
        match="FL_2_1",
    )


def graph_model(graph_desc, graph_bindings=None):
    """x -> TILE -> SLICE1 (reversed) -> GATHER(indices: graph input 1) -> y."""
    return {
        "resources": {
            "x": f32([1, 2, 3]), "y": zeros(2),
            "i": {"initialValuesDataType": "UINT32", "initialValues": [5, 1]},
        },
        "dispatchables": {
            "tile": {"type": "TILE", "desc": {
                "InputTensor": tensor(3), "OutputTensor": tensor(6),
                "RepeatsCount": 1, "Repeats": [2]}},
            "reverse": {"type": "DML_OPERATOR_SLICE1", "desc": {
                "InputTensor": tensor(6), "OutputTensor": tensor(6), "DimensionCount": 1,
                "InputWindowOffsets": [0], "InputWindowSizes": [6], "InputWindowStrides": [-1]}},
            "pick": {"type": "GATHER", "desc": {
                "InputTensor": tensor(6),
                "IndicesTensor": {"DataType": "UINT32", "Sizes": [2], "Flags": "OWNED_BY_DML"},
                "OutputTensor": tensor(2), "Axis": 0, "IndexDimensions": 1}},
            "graph": {"type": "DML_GRAPH_DESC", "desc": graph_desc,
                      "bindings": {"in_1": "i"} if graph_bindings is None else graph_bindings},
        },
        "commands": [
            {"type": "dispatch", "dispatchable": "graph", "bindings": {"in_0": "x", "out_0": "y"}},
            {"type": "print", "resource": "y"},
        ],
    }  # fmt: skip


CHAIN = {
    "InputCount": 2, "OutputCount": 1,
    "Nodes": [{"Type": "DML_GRAPH_NODE_TYPE_OPERATOR", "Name": name}
              for name in ("tile", "reverse", "pick")],
    "InputEdges": [
        {"GraphInputIndex": 0, "ToNodeIndex": 0, "ToNodeInputIndex": 0, "Name": "x"},
        {"GraphInputIndex": 1, "ToNodeIndex": 2, "ToNodeInputIndex": 1, "Name": "i"}],
    "OutputEdges": [{"FromNodeIndex": 2, "FromNodeOutputIndex": 0, "GraphOutputIndex": 0}],
    "IntermediateEdges": [
        {"FromNodeIndex": 0, "FromNodeOutputIndex": 0, "ToNodeIndex": 1, "ToNodeInputIndex": 0},
        {"FromNodeIndex": 1, "FromNodeOutputIndex": 0, "ToNodeIndex": 2, "ToNodeInputIndex": 0}],
}  # fmt: skip


def test_a_dml_graph_desc_dispatchable_runs_its_nodes_as_one_graph():
    # tile: 1 2 3 1 2 3; reversed: 3 2 1 3 2 1; indices 5, 1: 1, 2.
    model = dml.load_dxdispatch(json.dumps(graph_model(CHAIN)))
    assert model.run() == ["Resource 'y': 1, 2"]
    assert isinstance(model.dispatchables["graph"].function, dml.CompiledGraph)


@pytest.mark.parametrize(
    ("change", "field", "fragment"),
    [
        (("IntermediateEdges", 1, "ToNodeInputIndex"), "IntermediateEdges[1]",
         "InputEdges[1] feeds it already"),
        (("InputEdges", 1, "GraphInputIndex"), "InputEdges[1].GraphInputIndex",
         "less than 2"),
        (("OutputEdges", 0, "FromNodeIndex"), "IntermediateEdges", "cycle"),
        (("IntermediateEdges", 0, "FromNodeOutputIndex"),
         "IntermediateEdges[0].FromNodeOutputIndex", "node 0 has 1 outputs"),
    ],
)  # fmt: skip
def test_a_graph_dispatchables_rules_name_the_models_fields(change, field, fragment):
    desc = json.loads(json.dumps(CHAIN))
    (edges, k, key) = change
    desc[edges][k][key] = {"ToNodeInputIndex": 1, "GraphInputIndex": 2, "FromNodeIndex": 2,
                           "FromNodeOutputIndex": 1}[key]  # fmt: skip
    if change[0] == "OutputEdges":  # pick feeds tile: a cycle, and the output from pick
        desc["IntermediateEdges"].append(
            {"FromNodeIndex": 2, "FromNodeOutputIndex": 0, "ToNodeIndex": 0, "ToNodeInputIndex": 0}
        )
        del desc["InputEdges"][0]
    with pytest.raises(InvalidArgumentError) as e:
        dml.load_dxdispatch(json.dumps(graph_model(desc)))
    assert e.value.field == f"dispatchables.graph.desc.{field}"
    assert fragment in str(e.value)


@pytest.mark.parametrize(
    ("key", "value", "field", "fragment"),
    [
        ("OutputCount", 2**32 - 1, "OutputEdges", "no edge for graph output 1"),
        ("InputCount", 2**32 - 1, "InputCount", f"at most {2**16} graph inputs"),
        ("OutputCount", 10**30, "OutputCount", "a UINT"),
        ("InputCount", 10**30, "InputCount", "a UINT"),
        ("InputCount", -1, "InputCount", "a UINT"),
    ],
)
def test_graph_counts_from_a_small_file_are_refused_at_once(key, value, field, fragment):
    # A 1 KB model with a huge count: refused by the edges it has, not by building
    # anything per input or output, and named by its JSON path.
    desc = {**CHAIN, key: value}
    start = time.perf_counter()
    with pytest.raises(InvalidArgumentError) as e:
        dml.load_dxdispatch(json.dumps(graph_model(desc)))
    assert time.perf_counter() - start < 1
    assert e.value.field == f"dispatchables.graph.desc.{field}"
    assert fragment in str(e.value)


def test_the_unmerged_branchs_toy_graph_model_is_refused_for_its_wiring():
    # DxDispatch's jstoecker/dml_graph_desc branch: node_1's input 0 is fed twice (by x
    # and by node_0) while its input 1 has no edge: wrong whatever the nodes are.
    with pytest.raises(InvalidArgumentError) as e:
        dml.load_dxdispatch(MODELS / "dml_graph_quadratic.json")
    assert e.value.field == "dispatchables.graph.desc.IntermediateEdges[0]"
    assert "the only edge into node 1 input 0" in str(e.value)
    assert "InputEdges[1] feeds it already" in str(e.value)
    # With the wiring mended it computes (2x + 10) * x + c: IDENTITY's ScaleBias, then
    # MULTIPLY and ADD, c bound once as an OWNED_BY_DML input.
    spec = json.loads(MODELS.joinpath("dml_graph_quadratic.json").read_text())
    edges = spec["dispatchables"]["graph"]["desc"]
    edges["InputEdges"][1]["ToNodeInputIndex"] = 1
    edges["IntermediateEdges"][1]["ToNodeInputIndex"] = 0
    x, c = np.array([4, -2, 3, -5], np.float32), np.array([1, 2, 3, 4], np.float32)
    y = (2 * x + 10) * x + c
    assert dml.load_dxdispatch(json.dumps(spec)).run() == [
        "Resource 'y': " + ", ".join(f"{v:g}" for v in y)
    ]


def test_an_owned_graph_input_is_bound_at_initialization_and_only_then():
    with pytest.raises(InvalidArgumentError, match="an OWNED_BY_DML input") as e:
        dml.load_dxdispatch(json.dumps(graph_model(CHAIN, {"in_0": "x"})))
    assert e.value.field == "dispatchables.graph.bindings.in_0"  # not owned
    with pytest.raises(InvalidArgumentError, match="1 resources") as e:
        dml.load_dxdispatch(json.dumps(graph_model(CHAIN, {})))
    assert e.value.field == "dispatchables.graph.bindings.in_1"  # owned, so bound here
    desc = json.loads(json.dumps(CHAIN))
    desc["InputEdges"][1]["GraphInputIndex"] = 0  # x feeds tile and, owned, pick's indices
    with pytest.raises(InvalidArgumentError) as e:
        dml.load_dxdispatch(json.dumps(graph_model(desc)))
    assert e.value.field == "dispatchables.graph.desc.InputEdges[1]"


def test_the_dispatch_commands_are_one_jittable_function_of_the_resources():
    import jax
    import jax.numpy as jnp

    model = dml.load_dxdispatch(MODELS / "dml_join.json")
    function = jax.jit(model.as_function())
    buffers = model.buffers()
    out = function(buffers)["Out"]
    assert model.run() == ["Resource 'Out': 1, 2, 3, 100, 115, 5, 6, 7, 8, 9"]
    np.testing.assert_array_equal(
        np.asarray(out), np.frombuffer(model.resources["Out"].data, np.uint8)
    )
    # Batched resources: a vmap over two sets of bytes.
    twice = {k: jnp.stack([v, v]) for k, v in buffers.items()}
    batched = jax.vmap(model.as_function())(twice)["Out"]
    np.testing.assert_array_equal(batched, jnp.stack([out, out]))
    helpers.refused(
        lambda: model.as_function()({"A": buffers["A"]}), field="buffers", match="every resource"
    )


# --- Every operator, from its doc examples -------------------------------------------------------

_MEMBERS = {dml.DataType.INT8: "Int8", dml.DataType.INT16: "Int16", dml.DataType.INT32: "Int32",
            dml.DataType.INT64: "Int64", dml.DataType.UINT8: "UInt8", dml.DataType.UINT16: "UInt16",
            dml.DataType.UINT32: "UInt32", dml.DataType.UINT64: "UInt64",
            dml.DataType.FLOAT32: "Float32", dml.DataType.FLOAT64: "Float64"}  # fmt: skip


def tensor_json(desc):
    spec = {"DataType": f"DML_TENSOR_DATA_TYPE_{desc.data_type.name}", "Sizes": list(desc.sizes),
            "TotalTensorSizeInBytes": desc.total_tensor_size_in_bytes}  # fmt: skip
    if desc.strides is not None:
        spec["Strides"] = list(desc.strides)
    return spec


_OPERATOR_OF_DESC = {operator.desc_type: operator for operator in dml.OPERATORS}


def desc_json(desc):
    """An operator desc as a DxDispatch model writes it: the C field names, enum names,
    tensor arrays as arrays, scalar unions by member (FLOAT16 as its UInt16 bits)."""
    spec = {}
    for field in dataclasses.fields(desc):
        value = getattr(desc, field.name)
        key = pascal_case(field.name)
        if value is None:
            continue
        if isinstance(value, dml.TensorDesc):
            spec[key] = tensor_json(value)
        elif isinstance(value, tuple) and value and type(value[0]) in _OPERATOR_OF_DESC:
            # A DML_OPERATOR_DESC array (RNN's ActivationDescs): each its type and fields.
            spec[key] = [
                {"Type": _OPERATOR_OF_DESC[type(v)].name.removeprefix("DML_OPERATOR_"),
                 **desc_json(v)}
                for v in value
            ]  # fmt: skip
            spec[key.removesuffix("s") + "Count"] = len(value)
        elif isinstance(value, tuple) and value and isinstance(value[0], dml.TensorDesc):
            spec[key] = [tensor_json(t) for t in value]
            spec[key.replace("Tensors", "Count")] = len(value)
        elif isinstance(value, dml.DataType):
            spec[key] = f"DML_TENSOR_DATA_TYPE_{value.name}"
        elif type(value) in _OPERATOR_OF_DESC:
            # A DML_OPERATOR_DESC field (ADD1's FusedActivation): its type and its fields.
            name = _OPERATOR_OF_DESC[type(value)].name.removeprefix("DML_OPERATOR_")
            spec[key] = {"Type": name, **desc_json(value)}
        elif isinstance(value, dml.ScaleBias | dml.Size2D):  # a C struct: its fields
            spec[key] = {pascal_case(k): v for k, v in dataclasses.asdict(value).items()}
        elif isinstance(value, DmlEnum):
            spec[key] = f"{type(value).dml_name()}_{value.name}"
        elif isinstance(value, tuple):
            spec[key] = list(value)
        elif hasattr(desc, f"{field.name}_data_type"):  # a DML_SCALAR_UNION
            data_type = getattr(desc, f"{field.name}_data_type")
            if data_type is dml.DataType.FLOAT16:
                spec[key] = {"UInt16": int(np.array(value, np.float16).view(np.uint16))}
            else:
                spec[key] = {_MEMBERS[data_type]: value}
        else:
            spec[key] = value
    return spec


DOC_EXAMPLES = [
    e for e in doc_examples.entries()
    if e["op"] in doc_examples.BUILDERS and e["status"] in doc_examples.CHECKED_STATUSES
    and e["op"] != "BUFFER_TENSOR_VIEW"
]  # fmt: skip


@pytest.mark.parametrize("entry", DOC_EXAMPLES, ids=lambda e: e["id"])
def test_every_doc_example_runs_from_a_dxdispatch_model_as_compiled(entry):
    with doc_examples._x64_scope(entry):
        example = doc_examples.build(entry)
        desc = example.desc
        ins = [t for _, t in bound_tensors(desc, Role.INPUT)]
        outs = [t for _, t in bound_tensors(desc, Role.OUTPUT)]
        resources = {
            f"in{i}": {"initialValuesDataType": t.data_type.name,
                       "initialValues": np.asarray(x).reshape(-1).tolist()}
            for i, (t, x) in enumerate(zip(ins, example.inputs, strict=True))
        }  # fmt: skip
        resources |= {f"out{j}": zeros(t.bound_element_count, t.data_type.name)
                      for j, t in enumerate(outs)}  # fmt: skip
        bindings = {}
        position = {"in": 0, "out": 0}
        for role, name in ((Role.INPUT, "in"), (Role.OUTPUT, "out")):
            for field in tensor_fields(type(desc), role):
                value = getattr(desc, field.name)
                if value is None:
                    continue
                count = len(value) if field.metadata["many"] else 1
                names = [f"{name}{position[name] + i}" for i in range(count)]
                position[name] += count
                bindings[pascal_case(field.name)] = names if field.metadata["many"] else names[0]
        spec = {
            "resources": resources,
            # The name the page uses: SCATTER's examples call it by its alias SCATTER_ELEMENTS.
            "dispatchables": {"op": {"type": entry["op"], "desc": desc_json(desc)}},
            "commands": [{"type": "dispatch", "dispatchable": "op", "bindings": bindings}],
        }  # fmt: skip
        model = dml.load_dxdispatch(json.dumps(spec), **example.options)
        model.run()
        result = dml.compile_operator(desc, **example.options)(*example.inputs)
        results = result if isinstance(result, tuple) else (result,)
        for j, expected in enumerate(results):
            np.testing.assert_array_equal(
                model.resources[f"out{j}"].values(), np.asarray(expected).reshape(-1)
            )


def test_a_scalar_union_by_member_is_that_members_bytes_read_as_its_data_type():
    # DxDispatch's dml_scalar_union_fp16 style: FLOAT16 1.0 given as its UInt16 bits.
    text = model(
        {"X": {"initialValuesDataType": "FLOAT16", "initialValues": [2, 3]},
         "Out": zeros(4, "FLOAT16")},
        {"type": "PADDING1", "desc": {
            "InputTensor": tensor(2, data_type="FLOAT16"),
            "OutputTensor": tensor(4, data_type="FLOAT16"), "PaddingMode": "CONSTANT",
            "PaddingValueDataType": "DML_TENSOR_DATA_TYPE_FLOAT16",
            "PaddingValue": {"UInt16": 15360}, "DimensionCount": 1,
            "StartPadding": [1], "EndPadding": [1]}},
        {"InputTensor": "X", "OutputTensor": "Out"},
    )  # fmt: skip
    assert dml.load_dxdispatch(text).run() == ["Resource 'Out': 1, 2, 3, 1"]


def test_two_outputs_of_one_dispatch_may_not_write_the_same_bytes():
    # DirectML's BindOutputs: the writeable areas of two output tensors must not overlap.
    spec = json.loads(MODELS.joinpath("dml_split.json").read_text())
    spec["commands"][0]["bindings"]["OutputTensors"] = [
        "Out1", "Out2", {"name": "Out2", "elementOffset": 1}
    ]  # fmt: skip
    helpers.refused(
        lambda: dml.load_dxdispatch(json.dumps(spec)).run(),
        field="commands[0].bindings.OutputTensors[2]",
        match="outputs must not overlap",
    )


# --- Initializers, as DxDispatch's parser reads them ----------------------------------------------


def resources_of(resources):
    return dml.load_dxdispatch(json.dumps({"resources": resources, "dispatchables": {},
                                           "commands": []})).resources  # fmt: skip


def test_a_sequence_adds_its_delta_in_the_data_type_as_dxdispatch_does():
    got = resources_of({
        "F": {"initialValuesDataType": "FLOAT32",
              "initialValues": {"valueCount": 10, "valueStart": 0, "valueDelta": 0.1}},
        "I": {"initialValuesDataType": "INT8",
              "initialValues": {"valueCount": 3, "valueStart": 120, "valueDelta": 5}},
        "H": {"initialValuesDataType": "FLOAT16",
              "initialValues": {"valueCount": 3, "valueStart": 2048, "valueDelta": 1}},
    })  # fmt: skip
    # Repeated float32 additions, not start + i * delta: the last is 0.90000004.
    steps = np.full(10, np.float32(0.1))
    steps[0] = 0
    np.testing.assert_array_equal(got["F"].values(), np.add.accumulate(steps, dtype=np.float32))
    assert got["F"].values()[9] != np.float32(0.9)
    np.testing.assert_array_equal(got["I"].values(), [120, 125, -126])  # C++ wraps
    np.testing.assert_array_equal(got["H"].values(), [2048, 2048, 2048])  # 2049 is no half


def test_a_mixed_array_is_its_typed_values_bytes_and_sizes_round_up_to_4():
    got = resources_of({
        "M": {"initialValues": [{"type": "UINT32", "value": 42}, {"type": "FLOAT32", "value": 1.5},
                                {"type": "INT8", "value": -1}]},
        "Z": {"initialValuesDataType": "UINT8", "initialValues": [1, 2, 3, 4, 5]},
    })  # fmt: skip
    assert got["M"].data_type is None
    expected = np.uint32(42).tobytes() + np.float32(1.5).tobytes() + b"\xff"
    assert bytes(got["M"].data) == expected + bytes(3)  # rounded up to 4 bytes
    assert len(got["Z"].data) == 8
    assert list(got["Z"].values()) == [1, 2, 3, 4, 5]


def test_npy_files_carry_their_type_and_other_files_are_raw_bytes(tmp_path):
    np.save(tmp_path / "x.npy", np.array([[1, 2], [3, 4]], np.int16))
    (tmp_path / "x.raw").write_bytes(np.array([7, 8], np.int32).tobytes())
    spec = {
        "resources": {
            "N": {"initialValues": {"sourcePath": "x.npy"}},
            "R": {"initialValuesDataType": "INT32", "initialValues": {"sourcePath": "x.raw"}},
        },
        "dispatchables": {}, "commands": [{"type": "print", "resource": "N"},
                                          {"type": "print", "resource": "R"}],
    }  # fmt: skip
    path = tmp_path / "model.json"
    path.write_text(json.dumps(spec))
    model = dml.load_dxdispatch(path)
    assert model.run() == ["Resource 'N': 1, 2, 3, 4", "Resource 'R': 7, 8"]
    assert model.resources["N"].data_type is dml.DataType.INT16
    spec["resources"]["N"]["initialValuesDataType"] = "FLOAT32"
    path.write_text(json.dumps(spec))
    helpers.refused(
        lambda: dml.load_dxdispatch(path),
        field="resources.N.initialValues.sourcePath",
        match="a file of FLOAT32",
    )


INITIALIZER_REFUSALS = {
    "out of range": ({"initialValuesDataType": "INT8", "initialValues": [1, 300]},
                     "resources.X.initialValues[1]", "[-128, 127]"),
    "a float for an integer": ({"initialValuesDataType": "INT32", "initialValues": [1.5]},
                               "resources.X.initialValues[0]", "an integer"),
    "a word for a float": ({"initialValuesDataType": "FLOAT32", "initialValues": ["huge"]},
                           "resources.X.initialValues[0]", "'NaN', 'Inf'"),
    "a numeric string for a float": ({"initialValuesDataType": "FLOAT32",
                                      "initialValues": [1.0, "NaN", "1.5"]},
                                     "resources.X.initialValues[2]", "'NaN', 'Inf'"),
    "a bool for a float": ({"initialValuesDataType": "FLOAT16", "initialValues": [1.0, True]},
                           "resources.X.initialValues[1]", "a number"),
    "an integer past float64": ({"initialValuesDataType": "FLOAT64",
                                 "initialValues": [0, 10**400]},
                                "resources.X.initialValues[1]", "float64's range"),
    "a negative UINT64": ({"initialValuesDataType": "UINT64", "initialValues": [2**63, -1]},
                          "resources.X.initialValues[1]", "[0, 18446744073709551615]"),
    "past UINT64": ({"initialValuesDataType": "UINT64", "initialValues": [2**64]},
                    "resources.X.initialValues[0]", "[0, 18446744073709551615]"),
    "empty": ({"initialValuesDataType": "FLOAT32", "initialValues": []},
              "resources.X.initialValues", "at least one value"),
    "an offset past the default size": ({"initialValuesDataType": "FLOAT32",
                                         "initialValues": [1, 2], "initialValuesOffsetInBytes": 4},
                                        "resources.X.sizeInBytes", "at least 12"),
    "value and valueStart": ({"initialValuesDataType": "FLOAT32",
                              "initialValues": {"valueCount": 2, "value": 1, "valueStart": 0}},
                             "resources.X.initialValues", "mutually exclusive"),
    "no data type": ({"initialValues": {"valueCount": 2, "value": 1}},
                     "resources.X.initialValuesDataType", "need one"),
    "a mixed array printed": ({"initialValues": [{"type": "UINT8", "value": 1}]},
                              "commands[0].resource", "initialValuesDataType"),
}  # fmt: skip


@pytest.mark.parametrize("refusal", INITIALIZER_REFUSALS)
def test_each_initializer_refusal_names_the_value(refusal):
    resource, where, fragment = INITIALIZER_REFUSALS[refusal]
    text = json.dumps({"resources": {"X": resource}, "dispatchables": {},
                       "commands": [{"type": "print", "resource": "X"}]})  # fmt: skip
    with pytest.raises(InvalidArgumentError) as e:
        dml.load_dxdispatch(text).run()
    assert e.value.field == where
    assert fragment in str(e.value)


@pytest.mark.parametrize(
    ("data_type", "values"),
    [
        ("FLOAT32", [0, 1.5, -2, "NaN", "-inf", "Inf", 1e300, -1e-300, 2**60 + 1, 0.1]),
        ("FLOAT16", [0.1, 65519.99, 65520, 1e-8, 2049, 2**62, "nan", 1 + 2**-11 + 2**-40]),
        ("FLOAT64", [0.1, 2**53 + 1, -0.0, 1e308, "INF"]),
        ("INT8", [-128, 127, 0, -1]),
        ("UINT64", [0, 2**64 - 1, 2**63, 5]),
        ("INT64", [-(2**63), 2**63 - 1, 0]),
        ("UINT16", [65535, 0]),
    ],
)
def test_an_array_read_in_one_pass_is_each_value_as_dxdispatch_reads_it(
    data_type, values, monkeypatch
):
    """Arrays of numbers are converted by NumPy at once (a 100 MB model loads in seconds),
    to the values DxDispatch's parser reads one by one (FLOAT16 through float32)."""
    from dmljax._src.dxdispatch import resources

    kind = dml.DataType[data_type]
    expected = np.array([resources._element(v, kind, "x") for v in values], kind.dtype)
    monkeypatch.setattr(resources, "_element", None)  # the one pass calls no _element
    got = resources_of({"X": {"initialValuesDataType": data_type, "initialValues": values}})
    np.testing.assert_array_equal(got["X"].values().view(np.uint8), expected.view(np.uint8))


def _lying_npy(path: pathlib.Path) -> str:
    """An .npy whose header claims 2**40 float32 values over 16 bytes."""
    with path.open("wb") as f:
        np.lib.format.write_array_header_1_0(
            f, {"descr": "<f4", "fortran_order": False, "shape": (2**40,)}
        )
        f.write(bytes(16))
    return str(path)


HOSTILE_SIZES = {
    "8 GiB of sizeInBytes": ({"initialValues": [1.0], "sizeInBytes": 2**33},
                             "resources.X.sizeInBytes", "fits the memory"),
    "a UINT64 sizeInBytes": ({"initialValues": [1.0], "sizeInBytes": 2**64 - 1},
                             "resources.X.sizeInBytes", "fits the memory"),
    "a UINT32 valueCount of FLOAT64": ({"initialValuesDataType": "FLOAT64",
                                        "initialValues": {"valueCount": 2**32 - 1, "value": 1}},
                                       "resources.X.initialValues.valueCount", "fits the memory"),
    "a sequence as long": ({"initialValuesDataType": "FLOAT64", "initialValues": {
                                "valueCount": 2**32 - 1, "valueStart": 0, "valueDelta": 1}},
                           "resources.X.initialValues.valueCount", "fits the memory"),
    "/dev/zero": ({"initialValues": {"sourcePath": "/dev/zero"}},
                  "resources.X.initialValues.sourcePath", "a regular file"),
    "a folder": ({"initialValues": {"sourcePath": "."}},
                 "resources.X.initialValues.sourcePath", "a regular file"),
    "an .npy header that lies": ({"initialValues": {"sourcePath": "LIE"}},
                                 "resources.X.initialValues.sourcePath", "a readable file"),
}  # fmt: skip


@pytest.mark.parametrize("case", HOSTILE_SIZES)
def test_sizes_a_small_model_asks_for_are_refused_before_they_are_allocated(
    case, monkeypatch, tmp_path
):
    # Devices of 1 GiB, so that the test holds on any machine: each size is refused by
    # its JSON path at once, with no allocation of its size (Python's peak under 64 MiB).
    monkeypatch.setattr(rules, "device_memory", lambda: 2**30)
    resource, where, fragment = HOSTILE_SIZES[case]
    resource = {"initialValuesDataType": "FLOAT32", **resource}
    if resource["initialValues"] == {"sourcePath": "LIE"}:
        resource["initialValues"] = {"sourcePath": _lying_npy(tmp_path / "lie.npy")}
    text = json.dumps({"resources": {"X": resource}, "dispatchables": {}, "commands": []})
    tracemalloc.start()
    try:
        with pytest.raises(InvalidArgumentError) as e:
            dml.load_dxdispatch(text)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert e.value.field == where
    assert fragment in str(e.value)
    assert peak < 64 * 2**20, f"{peak / 2**20:.0f} MiB"


HOSTILE_TEXT = {
    "unclosed comments": ("{" + "/* " * 30_000, "model", "never closed"),
    "an unclosed string": ('{"a": "' + '\\"' * 30_000, "model", "a JSON model"),
    "deep nesting": ('{"a": ' + "[" * 100_000 + "]" * 100_000 + "}", "model",
                     "nested too deeply"),
    "a 5000-digit integer": ('{"resources": ' + "9" * 5000 + "}", "model", "a JSON model"),
    "resources as an array": ('{"resources": [1], "dispatchables": {}, "commands": []}',
                              "resources", "an object of named resources"),
    "commands as an object": ('{"resources": {}, "dispatchables": {}, "commands": {}}',
                              "commands", "an array of commands"),
}  # fmt: skip


@pytest.mark.parametrize("case", HOSTILE_TEXT)
def test_model_text_that_is_no_model_is_refused_at_once(case):
    text, where, fragment = HOSTILE_TEXT[case]
    start = time.perf_counter()
    with pytest.raises(InvalidArgumentError) as e:
        dml.load_dxdispatch(text)
    assert time.perf_counter() - start < 2
    assert e.value.field == where
    assert fragment in str(e.value)


@pytest.mark.parametrize("encoding", ["utf-16", "latin-1"])
def test_a_model_file_not_in_utf_8_is_refused(encoding, tmp_path):
    path = tmp_path / "model.json"
    path.write_text('{"resources": {"\u00e9": 1}}', encoding=encoding)
    with pytest.raises(InvalidArgumentError, match="in UTF-8") as e:
        dml.load_dxdispatch(path)
    assert e.value.field == "source"


@pytest.mark.parametrize("value", [-1, 0.5, "1", "abc", True, 2**64])
@pytest.mark.parametrize("key", ["elementOffset", "elementSizeInBytes"])
def test_binding_offsets_and_sizes_are_uints(key, value):
    spec = json.loads(OPERATOR_MODELS["tile"][0])
    bindings = spec["commands"][0]["bindings"]
    bindings["InputTensor"] = {"name": bindings["InputTensor"], key: value}
    with pytest.raises(InvalidArgumentError, match="a UINT") as e:
        dml.load_dxdispatch(json.dumps(spec)).run()
    assert e.value.field == f"commands[0].bindings.InputTensor.{key}"


def test_a_desc_fields_own_rule_is_named_by_its_json_path():
    # Found by tests/hostile_models.py: the desc's error named TileOperatorDesc.repeats[0].
    spec = json.loads(OPERATOR_MODELS["tile"][0])
    spec["dispatchables"]["op"]["desc"]["Repeats"] = [[2]]
    with pytest.raises(InvalidArgumentError, match="an integer") as e:
        dml.load_dxdispatch(json.dumps(spec))
    assert e.value.field == "dispatchables.op.desc.Repeats[0]"


@pytest.mark.parametrize("value", [0.0, "0", -1])
def test_graph_edge_indices_are_uints_named_by_their_path(value):
    desc = json.loads(json.dumps(CHAIN))
    desc["InputEdges"][0]["ToNodeIndex"] = value
    with pytest.raises(InvalidArgumentError, match="a UINT32") as e:
        dml.load_dxdispatch(json.dumps(graph_model(desc)))
    assert e.value.field == "dispatchables.graph.desc.InputEdges[0].ToNodeIndex"


def test_a_total_tensor_size_of_0_is_computed_as_dxdispatch_computes_it():
    spec = json.loads(OPERATOR_MODELS["tile"][0])
    spec["dispatchables"]["op"]["desc"]["OutputTensor"]["TotalTensorSizeInBytes"] = 0
    assert dml.load_dxdispatch(json.dumps(spec)).run() == OPERATOR_MODELS["tile"][1]


def test_an_operators_rule_names_the_json_fields_it_reads():
    # The rule's field and the fields its explanation names, as the model spells them.
    spec = {
        "InputTensor": {"DataType": "FLOAT32", "Sizes": [2]},
        "OutputTensor": {"DataType": "FLOAT32", "Sizes": [5]},
        "PaddingMode": "DML_PADDING_MODE_CONSTANT", "PaddingValueDataType": "FLOAT32",
        "PaddingValue": {"Float32": 0}, "DimensionCount": 1, "StartPadding": [1],
        "EndPadding": [1],
    }  # fmt: skip
    model = {
        "resources": {"A": {"initialValuesDataType": "FLOAT32", "initialValues": [1, 2]}},
        "dispatchables": {"pad": {"type": "PADDING1", "desc": spec}},
        "commands": [],
    }
    with pytest.raises(InvalidArgumentError) as e:
        dml.load_dxdispatch(json.dumps(model))
    assert e.value.field == "dispatchables.pad.desc.OutputTensor.Sizes"
    assert "(InputTensor.Sizes plus StartPadding plus EndPadding)" in str(e.value)
