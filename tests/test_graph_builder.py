"""dml.GraphBuilder: graphs written as calls of the functional faces."""

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import dmljax as dml
from dmljax._src.checking import selftest
from dmljax._src.checking.operators import all_checks

T = dml.DataType
InvalidArgumentError = dml.errors.InvalidArgumentError
F32 = T.FLOAT32


def t(data_type, *sizes):
    return dml.TensorDesc(data_type=data_type, sizes=sizes)


def _pipeline_by_hand() -> dml.GraphDesc:
    """GATHER -> PADDING -> JOIN (of the padding twice) -> SPLIT, every desc and edge
    written out."""
    gather = dml.GatherOperatorDesc(
        input_tensor=t(F32, 4, 3), indices_tensor=t(T.INT32, 1, 2), output_tensor=t(F32, 2, 3),
        axis=0, index_dimensions=1,
    )  # fmt: skip
    pad = dml.Padding1OperatorDesc(
        input_tensor=t(F32, 2, 3), output_tensor=t(F32, 2, 5),
        padding_mode=dml.PaddingMode.CONSTANT, padding_value_data_type=F32, padding_value=0,
        start_padding=(0, 1), end_padding=(0, 1),
    )  # fmt: skip
    join = dml.JoinOperatorDesc(
        input_tensors=(t(F32, 2, 5), t(F32, 2, 5)), output_tensor=t(F32, 4, 5), axis=0
    )
    split = dml.SplitOperatorDesc(
        input_tensor=t(F32, 4, 5), output_tensors=(t(F32, 1, 5), t(F32, 3, 5)), axis=0
    )
    edge = dml.IntermediateGraphEdgeDesc
    return dml.GraphDesc(
        input_count=2,
        output_count=2,
        nodes=tuple(dml.OperatorGraphNodeDesc(operator=d) for d in (gather, pad, join, split)),
        input_edges=(
            dml.InputGraphEdgeDesc(graph_input_index=0, to_node_index=0, to_node_input_index=0),
            dml.InputGraphEdgeDesc(graph_input_index=1, to_node_index=0, to_node_input_index=1),
        ),
        output_edges=(
            dml.OutputGraphEdgeDesc(
                from_node_index=3, from_node_output_index=0, graph_output_index=0
            ),
            dml.OutputGraphEdgeDesc(
                from_node_index=3, from_node_output_index=1, graph_output_index=1
            ),
        ),
        intermediate_edges=(
            edge(
                from_node_index=0, from_node_output_index=0, to_node_index=1, to_node_input_index=0
            ),
            edge(
                from_node_index=1, from_node_output_index=0, to_node_index=2, to_node_input_index=0
            ),
            edge(
                from_node_index=1, from_node_output_index=0, to_node_index=2, to_node_input_index=1
            ),
            edge(
                from_node_index=2, from_node_output_index=0, to_node_index=3, to_node_input_index=0
            ),
        ),
    )


def test_the_four_node_pipeline_in_eight_lines_is_the_hand_written_graph():
    g = dml.GraphBuilder()
    x = g.input(t(F32, 4, 3))
    idx = g.input(t(T.INT32, 2))
    rows = g.gather(x, idx, axis=0)
    padded = g.pad(rows, (0, 1), (0, 1))
    top, bottom = g.split(g.join([padded, padded], axis=0), (1, 3), axis=0)
    graph = g.build([top, bottom])
    assert graph == _pipeline_by_hand()
    # And it runs as the faces do.
    xs, ids = jnp.arange(12.0).reshape(4, 3), jnp.array([3, 1], jnp.int32)
    eager = dml.pad(dml.gather(xs, ids, axis=0), (0, 1), (0, 1))
    want = dml.split(dml.join([eager, eager], axis=0), (1, 3), axis=0)
    for got, expected in zip(g.compile([top, bottom])(xs, ids), want, strict=True):
        np.testing.assert_array_equal(got, expected)


_FACES = [op for op in dml.OPERATORS if op.face is not None]


@pytest.mark.parametrize("operator", _FACES, ids=lambda op: op.name)
def test_every_face_is_a_node_that_computes_what_the_face_does(operator):
    # The companion's sweep draws calls of the face; a graph of each, with the call's
    # arrays as graph inputs, gives the face's result, or DirectML refuses the call by
    # name (empty tensors, 8-bit indices, ...). Two draws of every face are graphs.
    checks = all_checks()[operator.name]
    assert checks.sweep is not None
    built = []
    for seed in range(40):
        drawn = checks.sweep(np.random.default_rng(seed), checks.first_dtype)
        if not drawn.batch[0]:
            pytest.skip("a generator takes no tensor: GraphBuilder's method of the face adds "
                        "it (tests/test_fill_value.py)")  # fmt: skip
        g = dml.GraphBuilder()
        try:
            out = drawn.fn(*[g.input(a) for a in drawn.batch[0]])
        except InvalidArgumentError as error:
            refused = error  # DirectML's refusal, by name
            assert "GraphBuilder.input" in refused.op or "(graph node " in refused.op, refused
            continue
        built.append((drawn, g.compile(list(out) if isinstance(out, tuple) else [out])))
        if len(built) == 2:
            break
    if len(built) < 2:
        pytest.fail(f"fewer than two draws of {operator.name}'s face made a graph")
    calls = [(f, drawn.batch[0]) for drawn, graph in built for f in (graph, drawn.fn)]
    outs = selftest.in_one_program(calls)
    for (drawn, _), got, want in zip(built, outs[::2], outs[1::2], strict=True):
        for a, b in zip(got, want if isinstance(want, tuple) else [want], strict=True):
            np.testing.assert_array_equal(np.asarray(a).reshape(np.shape(b)), b, drawn.label)


def test_the_faces_on_graph_tensors_are_the_builders_methods():
    # g.gather is dml.gather: a face called on a graph tensor adds the same node (typed
    # code calls the builder's methods: the faces are typed for arrays).
    g = dml.GraphBuilder()
    x = g.input(t(F32, 3, 2))
    by_function: Any = dml.gather(x, np.array([2, 0], np.int32), axis=0)  # pyright: ignore[reportArgumentType]
    by_method = g.gather(x, np.array([2, 0], np.int32), axis=0)
    graph = g.build([by_function, by_method])
    assert graph.nodes[1] == graph.nodes[3]


def test_builder_methods_are_the_faces_and_take_calls_without_tensors():
    g = dml.GraphBuilder()
    assert {"gather", "pad", "split", "diagonal_matrix"} <= set(dir(g))
    eye = g.diagonal_matrix(jax.ShapeDtypeStruct((2, 3), jnp.float32), value=1.0)
    x = g.input(t(F32, 2, 3))
    out = g.tile(x, (1, 2))
    graph = g.build([eye, out])
    node = graph.nodes[0]
    assert isinstance(node, dml.OperatorGraphNodeDesc)
    assert isinstance(node.operator, dml.DiagonalMatrix1OperatorDesc)
    assert node.operator.input_tensor is None
    got_eye, got_tile = g.compile([eye, out])(jnp.ones((2, 3)))
    np.testing.assert_array_equal(got_eye, jnp.eye(2, 3))
    np.testing.assert_array_equal(got_tile, jnp.ones((2, 6)))
    # Concrete arrays alone run as they always do: an array, a constant once a node
    # takes it.
    folded = g.gather(jnp.arange(3.0), jnp.array([2, 0], jnp.int32), axis=0)
    assert isinstance(folded, jax.Array)
    assert len(g.build([eye]).nodes) == 2
    with pytest.raises(AttributeError, match="no attribute 'gathr'"):
        g.gathr  # noqa: B018


def test_concrete_arrays_are_constant_nodes():
    g = dml.GraphBuilder()
    x = g.input(t(F32, 4))
    out = g.gather(x, np.array([3, 0], np.int32), axis=0)
    graph = g.build(out)
    constant, _ = graph.nodes
    assert constant == dml.ConstantDataGraphNodeDesc(data=np.array([3, 0], np.int32).tobytes())
    assert graph.intermediate_edges[0].to_node_input_index == 1
    np.testing.assert_array_equal(g.compile(out)(jnp.arange(4.0)), ([3.0, 0.0],))
    # Below FL 6_2 a graph has no constant nodes: refused at the call.
    old = dml.GraphBuilder(dml.FeatureLevel.FL_5_0)
    with pytest.raises(InvalidArgumentError, match="FL_6_2") as caught:
        old.gather(old.input(t(F32, 4)), np.array([3, 0], np.int32), axis=0)
    assert (caught.value.op, caught.value.field) == ("dmljax.gather", "indices")


def test_deterministic_calls_compile_a_deterministic_graph():
    g = dml.GraphBuilder()
    x, u = g.input(t(F32, 3)), g.input(t(F32, 4))
    out = g.scatter(x, np.array([1, 1, 1, 2], np.int32), u, axis=0, deterministic=True)
    updates = jnp.array([5.0, 6.0, 7.0, 8.0])
    np.testing.assert_array_equal(g.compile(out)(jnp.zeros(3), updates)[0], [0.0, 7.0, 8.0])


def test_a_wrong_argument_names_the_call_and_the_node():
    g = dml.GraphBuilder()
    x = g.input(t(F32, 4, 3))
    g.tile(x, (1, 1))
    with pytest.raises(InvalidArgumentError) as caught:
        g.gather(x, np.array([0], np.int32), axis=2)
    assert (caught.value.op, caught.value.field) == ("dmljax.gather (graph node 2)", "axis")
    # (node 2: its indices would have been node 1, a constant)
    # A face's extension DirectML lacks is the node's own rule, at the call.
    with pytest.raises(InvalidArgumentError) as caught:
        g.pad(x, (-1, 0), (0, 0))
    assert caught.value.op == "Padding1OperatorDesc in dmljax.pad (graph node 1)"
    assert caught.value.field == "start_padding[0]"
    with pytest.raises(InvalidArgumentError, match="do not reduce") as caught:
        g.scatter(x, np.zeros((4, 3), np.int32), x, axis=0, reduction="add")
    assert caught.value.field == "reduction"
    with pytest.raises(InvalidArgumentError, match="no operator desc expresses"):
        g.pad(x, 1, constant_values=jnp.float32(2))
    # Refused calls add nothing, not even their constants: two tiles.
    assert len(g.build(g.tile(x, (1, 1))).nodes) == 2


def test_graph_outputs_and_tensors_are_checked():
    g, other = dml.GraphBuilder(), dml.GraphBuilder()
    x, y = g.input(t(F32, 2)), other.input(t(F32, 2))
    with pytest.raises(InvalidArgumentError, match="a tensor a node computes"):
        g.build([x])
    with pytest.raises(InvalidArgumentError, match="of another one"):
        g.join([x, y], axis=0)
    with pytest.raises(InvalidArgumentError, match="of this GraphBuilder"):
        other.build([g.tile(x, (2,))])
    with pytest.raises(TypeError, match="no values until the graph runs"):
        np.asarray(x)
    with pytest.raises(InvalidArgumentError, match=r"GraphBuilder\.input"):
        g.input(jnp.zeros((0, 2)))
