"""onnxruntime's DirectML serialized graphs: DxDispatch's matmul_add partition, graphs
written here with every kind of node, edge and attribute the format has, and spoiled
files, each refused with an error that names the field."""

from __future__ import annotations

import pathlib
import shutil

import numpy as np
import pytest

import dmljax as dml
from tests import helpers, serialized_graphs as sg

PARTITION = pathlib.Path(__file__).parent / "data" / "dxdispatch" / "matmul_add"
T = dml.DataType


def _f32(*sizes: int) -> sg.Table:
    return sg.tensor("FLOAT32", list(sizes))


def _load(tmp_path: pathlib.Path, data: bytes) -> dml.GraphDesc:
    (tmp_path / "graph.bin").write_bytes(data)
    return dml.load_serialized_graph(tmp_path / "graph.bin")


def test_the_matmul_add_partition_reads_as_its_nodes_and_edges():
    graph = dml.load_serialized_graph(PARTITION / "Partition_0.bin")
    b, c, gemm = graph.nodes
    assert isinstance(b, dml.ConstantDataGraphNodeDesc)
    assert b.name == "matmul_b_tensor"
    assert b.data == (PARTITION / "matmul_b_tensor.bin").read_bytes()
    assert isinstance(c, dml.ConstantDataGraphNodeDesc)
    assert c.data == (PARTITION / "add_b_tensor.bin").read_bytes()
    assert isinstance(gemm, dml.OperatorGraphNodeDesc)
    assert gemm.name == "model_output_dmlEp_0"
    desc = gemm.operator
    assert isinstance(desc, dml.GemmOperatorDesc)
    assert (desc.a_tensor.sizes, desc.b_tensor.sizes) == ((1, 1, 1, 5), (1, 1, 5, 5))
    assert (desc.alpha, desc.beta, desc.fused_activation) == (1.0, 1.0, None)
    assert [(e.graph_input_index, e.to_node_index, e.to_node_input_index, e.name)
            for e in graph.input_edges] == [(0, 2, 0, "model_input")]  # fmt: skip
    assert [(e.from_node_index, e.to_node_index, e.to_node_input_index)
            for e in graph.intermediate_edges] == [(0, 2, 1), (1, 2, 2)]  # fmt: skip
    assert [e.name for e in graph.output_edges] == ["model_output"]
    x = np.arange(5, dtype=np.float32).reshape(1, 1, 1, 5)
    want = x.reshape(1, 5) @ np.frombuffer(b.data, np.float32).reshape(5, 5) + np.frombuffer(
        c.data, np.float32
    )
    np.testing.assert_allclose(dml.compile_graph(graph)(x)[0].reshape(1, 5), want, rtol=1e-6)


def test_a_chain_through_a_raw_constant_computes_what_numpy_computes(tmp_path):
    addend = np.array([1, 2, 3], np.float32)
    data = sg.graph(
        [sg.raw_constant("c", addend.tobytes(), "c:0"),
         sg.operator_node("add", "DML_OPERATOR_ELEMENT_WISE_ADD", ["x", "c:0"], ["sum"],
                          [_f32(3), _f32(3)], [_f32(3)], []),
         sg.operator_node("relu", "DML_OPERATOR_ACTIVATION_RELU", ["sum"], ["y"],
                          [_f32(3)], [_f32(3)], [])],
        ["x"], ["y"],
    )  # fmt: skip
    graph = _load(tmp_path, data)
    assert [e.name for e in graph.intermediate_edges] == ["c:0", "sum"]
    x = np.array([-5, 0.5, 5], np.float32)
    np.testing.assert_array_equal(dml.compile_graph(graph)(x)[0], np.maximum(x + addend, 0))


def test_an_absent_optional_input_and_a_fused_activation(tmp_path):
    elu = sg.activation("DML_OPERATOR_ACTIVATION_ELU", [sg.attribute("Alpha", "Float32", 0.5)])
    attributes = [sg.attribute("TransA", "UInt32", 0), sg.attribute("TransB", "UInt32", 1),
                  sg.attribute("Alpha", "Float32", 2.0), sg.attribute("Beta", "Float32", 0.0),
                  sg.attribute("FusedActivation", "Activation", elu)]  # fmt: skip
    data = sg.graph(
        [sg.operator_node("gemm", "DML_OPERATOR_GEMM", ["a", "b", ""], ["y"],
                          [_f32(1, 1, 2, 3), _f32(1, 1, 2, 3)], [_f32(1, 1, 2, 2)], attributes)],
        ["a", "b"], ["y"],
    )  # fmt: skip
    graph = _load(tmp_path, data)
    desc = graph.nodes[0].operator  # type: ignore[union-attr]
    assert isinstance(desc, dml.GemmOperatorDesc)
    assert desc.c_tensor is None
    assert desc.fused_activation == dml.ActivationEluOperatorDesc(alpha=0.5)
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal((1, 1, 2, 3)).astype(np.float32) for _ in range(2))
    z = 2.0 * a[0, 0].astype(np.float64) @ b[0, 0].T.astype(np.float64)
    want = np.where(z > 0, z, 0.5 * (np.exp(z) - 1))
    np.testing.assert_allclose(dml.compile_graph(graph)(a, b)[0][0, 0], want, rtol=1e-5,
                               atol=1e-6)  # fmt: skip
    # A null attribute (no value) leaves the field at its default: no fused activation.
    attributes[-1] = sg.attribute(None)
    data = sg.graph(
        [sg.operator_node("gemm", "DML_OPERATOR_GEMM", ["a", "b", ""], ["y"],
                          [_f32(1, 1, 2, 3), _f32(1, 1, 2, 3)], [_f32(1, 1, 2, 2)], attributes)],
        ["a", "b"], ["y"],
    )  # fmt: skip
    assert _load(tmp_path, data).nodes[0].operator.fused_activation is None  # type: ignore[union-attr]


def _one_node(op: str, inputs: list[sg.Table], outputs: list[sg.Table],
              attributes: list[sg.Table]) -> bytes:  # fmt: skip
    names = [f"in{i}" for i in range(len(inputs))]
    return sg.graph(
        [sg.operator_node("n", op, names, [f"out{j}" for j in range(len(outputs))], inputs,
                          outputs, attributes)],
        names, [f"out{j}" for j in range(len(outputs))],
    )  # fmt: skip


def _td(*sizes: int) -> dml.TensorDesc:
    return dml.TensorDesc(data_type=T.FLOAT32, sizes=sizes)


@pytest.mark.parametrize(
    ("op", "inputs", "outputs", "attributes", "want"),
    [
        ("DML_OPERATOR_TILE", [(2,)], [(4,)],
         [sg.attribute("RepeatsCount", "UInt32", 1), sg.attribute("Repeats", "UIntArray", [2])],
         dml.TileOperatorDesc(input_tensor=_td(2), output_tensor=_td(4), repeats=(2,))),
        # A BOOL the schema holds as a UINT, and an enum as its value.
        ("DML_OPERATOR_CUMULATIVE_SUMMATION", [(3,)], [(3,)],
         [sg.attribute("Axis", "UInt32", 0), sg.attribute("AxisDirection", "UInt32", 1),
          sg.attribute("HasExclusiveSum", "UInt32", 1)],
         dml.CumulativeSummationOperatorDesc(
             input_tensor=_td(3), output_tensor=_td(3), axis=0,
             axis_direction=dml.AxisDirection.DECREASING, has_exclusive_sum=True)),
        # A scalar union's bytes, read as its sibling data type says.
        ("DML_OPERATOR_FILL_VALUE_CONSTANT", [], [(2,)],
         [sg.attribute("ValueDataType", "UInt32", 1),
          sg.attribute("Value", "ScalarUnionData", np.float32(2.5).tobytes())],
         dml.FillValueConstantOperatorDesc(output_tensor=_td(2), value_data_type=T.FLOAT32,
                                           value=2.5)),
        ("DML_OPERATOR_UPSAMPLE_2D", [(1, 1, 2, 2)], [(1, 1, 4, 6)],
         [sg.attribute("ScaleSize", "Size2D", (3, 2)),
          sg.attribute("InterpolationMode", "UInt32", 0)],
         dml.Upsample2dOperatorDesc(input_tensor=_td(1, 1, 2, 2), output_tensor=_td(1, 1, 4, 6),
                                    scale_size=dml.Size2D(width=3, height=2),
                                    interpolation_mode=dml.InterpolationMode.NEAREST_NEIGHBOR)),
        ("DML_OPERATOR_ELEMENT_WISE_IDENTITY", [(2,)], [(2,)],
         [sg.attribute("ScaleBias", "ScaleBias", (2.0, 0.5))],
         dml.ElementWiseIdentityOperatorDesc(input_tensor=_td(2), output_tensor=_td(2),
                                             scale_bias=dml.ScaleBias(scale=2.0, bias=0.5))),
        ("DML_OPERATOR_RESAMPLE1", [(1, 2)], [(1, 4)],
         [sg.attribute("InterpolationMode", "UInt32", 1),
          sg.attribute("DimensionCount", "UInt32", 2),
          sg.attribute("Scales", "FloatArray", [1.0, 2.0]),
          sg.attribute("InputPixelOffsets", "FloatArray", [0.5, 0.5]),
          sg.attribute("OutputPixelOffsets", "FloatArray", [-0.5, -0.5])],
         dml.Resample1OperatorDesc(input_tensor=_td(1, 2), output_tensor=_td(1, 4),
                                   interpolation_mode=dml.InterpolationMode.LINEAR,
                                   scales=(1.0, 2.0), input_pixel_offsets=(0.5, 0.5),
                                   output_pixel_offsets=(-0.5, -0.5))),
        ("DML_OPERATOR_PADDING1", [(2,)], [(5,)],
         [sg.attribute("PaddingMode", "UInt32", 0),
          sg.attribute("PaddingValueDataType", "UInt32", 1),
          sg.attribute("PaddingValue", "ScalarUnionData", np.float32(-1).tobytes()),
          sg.attribute("DimensionCount", "UInt32", 1),
          sg.attribute("StartPadding", "IntArray", [1]),
          sg.attribute("EndPadding", "IntArray", [2])],
         dml.Padding1OperatorDesc(input_tensor=_td(2), output_tensor=_td(5),
                                  padding_mode=dml.PaddingMode.CONSTANT,
                                  padding_value_data_type=T.FLOAT32, padding_value=-1.0,
                                  start_padding=(1,), end_padding=(2,))),
        # An array of activation descs, and an Int32 field as the schema has.
        ("DML_OPERATOR_RNN", [(1, 2, 1, 1), (1, 1, 1, 1), (1, 1, 1, 1)], [(2, 1, 1, 1)],
         [sg.attribute("ActivationDescCount", "UInt32", 1),
          sg.attribute("ActivationDescs", "ActivationArray",
                       [sg.activation("DML_OPERATOR_ACTIVATION_TANH")]),
          sg.attribute("Direction", "UInt32", 0)],
         dml.RnnOperatorDesc(input_tensor=_td(1, 2, 1, 1), weight_tensor=_td(1, 1, 1, 1),
                             recurrence_tensor=_td(1, 1, 1, 1),
                             output_sequence_tensor=_td(2, 1, 1, 1),
                             activation_descs=(dml.ActivationTanhOperatorDesc(),),
                             direction=dml.RecurrentNetworkDirection.FORWARD)),
    ],
    ids=lambda v: v.removeprefix("DML_OPERATOR_") if isinstance(v, str) else "",
)  # fmt: skip
def test_each_attribute_kind_reads_as_the_desc_field_holds_it(
    tmp_path, op, inputs, outputs, attributes, want
):
    data = _one_node(op, [_f32(*s) for s in inputs], [_f32(*s) for s in outputs], attributes)
    graph = _load(tmp_path, data)
    assert graph.nodes[0].operator == want  # type: ignore[union-attr]
    assert dml.compile_graph(graph)  # and it compiles, its edges where the file put them


# --- Refusals ---


def test_every_truncation_of_a_partition_is_refused_naming_what_it_lacks(tmp_path):
    whole = (PARTITION / "Partition_0.bin").read_bytes()
    shutil.copy(PARTITION / "matmul_b_tensor.bin", tmp_path)
    shutil.copy(PARTITION / "add_b_tensor.bin", tmp_path)
    for size in range(len(whole)):
        with pytest.raises(dml.errors.InvalidArgumentError, match="load_serialized_graph"):
            _load(tmp_path, whole[:size])


def test_a_spoiled_byte_is_read_or_refused_never_a_raw_exception(tmp_path):
    whole = bytearray((PARTITION / "Partition_0.bin").read_bytes())
    shutil.copy(PARTITION / "matmul_b_tensor.bin", tmp_path)
    shutil.copy(PARTITION / "add_b_tensor.bin", tmp_path)
    refused = 0
    for position in range(len(whole)):
        for value in (0x00, 0x7F, 0xFF):
            spoiled = bytearray(whole)
            spoiled[position] = value
            try:
                _load(tmp_path, bytes(spoiled))
            except dml.errors.ArgumentError:
                refused += 1
    assert refused > len(whole)  # most bytes matter


def test_a_missing_constant_file_is_named(tmp_path):
    shutil.copy(PARTITION / "Partition_0.bin", tmp_path)
    helpers.refused(lambda: dml.load_serialized_graph(tmp_path / "Partition_0.bin"),
                    field="nodes[0].desc.data.name", match="matmul_b_tensor")  # fmt: skip


@pytest.mark.parametrize("name", ["../escape", "a/b", "..", ""])
def test_a_constant_name_that_leaves_the_folder_is_refused(tmp_path, name):
    data = sg.graph([sg.named_constant("c", name, "c:0")], [], ["c:0"])
    helpers.refused(lambda: _load(tmp_path, data), field="nodes[0].desc.data.name",
                    match="file name")  # fmt: skip


def test_refusals_name_the_field(tmp_path):
    def add(op: str, inputs: list[str]) -> sg.Table:
        return sg.operator_node("n", op, inputs, ["y"], [_f32(2), _f32(2)], [_f32(2)], [])

    cases = [
        (sg.graph([add("DML_OPERATOR_ROI_ALIGN", ["x", "x"])], ["x"], ["y"]),
         "nodes[0].desc.type", "implements"),
        (sg.graph([add("DML_OPERATOR_ELEMENT_WISE_ADD", ["x", "z"])], ["x"], ["y"]),
         "nodes[0].inputNames[1]", "earlier node"),
        (sg.graph([sg.operator_node("n", "DML_OPERATOR_ELEMENT_WISE_ADD", ["x", "x"], ["y"],
                                    [_f32(2)], [_f32(2)], [])], ["x"], ["y"]),
         "nodes[0].desc.inputs", "a tensor desc for each"),
        (sg.graph([sg.operator_node("n", "DML_OPERATOR_ELEMENT_WISE_ADD", ["x", "x"], ["y"],
                                    [_f32(2), sg.tensor("FLOAT99", [2])], [_f32(2)], [])],
                  ["x"], ["y"]),
         "nodes[0].desc.inputs[1].dataType", "DML_TENSOR_DATA_TYPE"),
        (sg.graph([sg.operator_node("", "DML_OPERATOR_ELEMENT_WISE_ADD", ["x", "x"], ["y"],
                                    [_f32(2), _f32(2)], [_f32(2)], [])], ["x"], ["y"]),
         "nodes[0].name", "a node name"),
        (sg.graph([sg.operator_node("n", "DML_OPERATOR_TILE", ["x"], ["y"], [_f32(2)],
                                    [_f32(4)], [sg.attribute("Bogus", "UInt32", 2)])],
                  ["x"], ["y"]),
         "nodes[0].desc.attributes[0].name", "a field of TileOperatorDesc"),
        (sg.graph([sg.operator_node("n", "DML_OPERATOR_TILE", ["x"], ["y"], [_f32(2)],
                                    [_f32(4)], [])], ["x"], ["y"]),
         "nodes[0].desc", "every field"),
        (sg.graph([sg.operator_node("n", "DML_OPERATOR_GEMM", ["x", "x", ""], ["y"],
                                    [_f32(2, 2), _f32(2, 2)], [_f32(2, 2)],
                                    [sg.attribute("FusedActivation", "Activation",
                                                  sg.activation("DML_OPERATOR_GEMM"))])],
                  ["x"], ["y"]),
         "nodes[0].desc.attributes[0].val.type", "ACTIVATION"),
    ]  # fmt: skip
    for data, field, match in cases:
        helpers.refused(lambda data=data: _load(tmp_path, data), field=field, match=match)


@pytest.mark.parametrize("path", ["folder", "/dev/zero", "missing.bin"])
def test_what_is_not_a_file_is_refused(tmp_path, path):
    (tmp_path / "folder").mkdir()
    target = path if path.startswith("/") else tmp_path / path
    helpers.refused(lambda: dml.load_serialized_graph(target), field="path",
                    match="a regular file")  # fmt: skip


def test_the_dxdispatch_dispatchable_names_the_file_and_its_field(tmp_path):
    (tmp_path / "g.bin").write_bytes(
        sg.graph(
            [
                sg.operator_node(
                    "n", "DML_OPERATOR_ROI_ALIGN", ["x"], ["y"], [_f32(2)], [_f32(2)], []
                )
            ],
            ["x"],
            ["y"],
        )
    )
    model = {
        "resources": {"x": {"initialValuesDataType": "FLOAT32",
                            "initialValues": {"valueCount": 2, "value": 1}}},
        "dispatchables": {"g": {"type": "dmlSerializedGraph", "sourcePath": "g.bin"}},
        "commands": [{"type": "dispatch", "dispatchable": "g", "bindings": {"x": "x"}}],
    }  # fmt: skip
    (tmp_path / "model.json").write_text(__import__("json").dumps(model))
    helpers.refused(lambda: dml.load_dxdispatch(tmp_path / "model.json"),
                    field="dispatchables.g.sourcePath (g.bin): nodes[0].desc.type",
                    match="implements")  # fmt: skip
