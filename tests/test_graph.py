"""Operator graphs: DML_GRAPH_DESC validated rule by rule and compiled into one program."""

import contextlib
import dataclasses
import math
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

import hypothesis
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, strategies as st

import dmljax as dml
from dmljax._src.checking import doc_examples, reference
from dmljax._src.contract import Role
from dmljax._src.graph import slots as node_slots
from tests import helpers

F32, I32, U8 = dml.DataType.FLOAT32, dml.DataType.INT32, dml.DataType.UINT8
InvalidArgumentError = dml.errors.InvalidArgumentError


def t(*sizes, data_type=F32, strides=None):
    return dml.TensorDesc(data_type=data_type, sizes=sizes, strides=strides)


def node(operator, name=""):
    return dml.OperatorGraphNodeDesc(operator=operator, name=name)


def inp(graph_input, to_node, to_input=0):
    return dml.InputGraphEdgeDesc(
        graph_input_index=graph_input, to_node_index=to_node, to_node_input_index=to_input
    )


def mid(from_node, to_node, to_input=0, from_output=0):
    return dml.IntermediateGraphEdgeDesc(
        from_node_index=from_node,
        from_node_output_index=from_output,
        to_node_index=to_node,
        to_node_input_index=to_input,
    )


def out(from_node, graph_output=0, from_output=0):
    return dml.OutputGraphEdgeDesc(
        from_node_index=from_node,
        from_node_output_index=from_output,
        graph_output_index=graph_output,
    )


TILE = dml.TileOperatorDesc(input_tensor=t(3), output_tensor=t(6), repeats=(2,))
REVERSE = dml.Slice1OperatorDesc(
    input_tensor=t(6),
    output_tensor=t(6),
    input_window_offsets=(0,),
    input_window_sizes=(6,),
    input_window_strides=(-1,),
)
GATHER = dml.GatherOperatorDesc(
    input_tensor=t(6), indices_tensor=t(2, data_type=I32), output_tensor=t(2),
    axis=0, index_dimensions=1,
)  # fmt: skip


def chain(**changes):
    """input 0 -> TILE -> REVERSE -> GATHER(indices: input 1) -> output 0."""
    fields = {
        "input_count": 2,
        "output_count": 1,
        "nodes": (node(TILE), node(REVERSE), node(GATHER)),
        "input_edges": (inp(0, 0), inp(1, 2, 1)),
        "intermediate_edges": (mid(0, 1), mid(1, 2)),
        "output_edges": (out(2),),
    }
    return dml.GraphDesc(**{**fields, **changes})


X = jnp.array([1.0, 2.0, 3.0])
IDX = jnp.array([0, 4], jnp.int32)


def test_a_chain_runs_as_its_nodes_one_after_another():
    (y,) = dml.compile_graph(chain())(X, IDX)
    step = dml.compile_operator(REVERSE)(dml.compile_operator(TILE)(X))
    np.testing.assert_array_equal(y, dml.compile_operator(GATHER)(step, IDX))
    np.testing.assert_array_equal(y, [3.0, 2.0])
    assert dml.compile_graph(chain()) is dml.compile_graph(chain())  # cached per graph


def test_the_graph_is_one_program_with_every_node_inlined():
    graph = dml.compile_graph(chain())
    text = graph.lower(X, IDX).as_text()
    assert text.count("func.func public @main") == 1
    compiled = graph.lower(X, IDX).compile().as_text()
    assert compiled.count("ENTRY") == 1


def test_a_six_node_graph_fuses_across_its_nodes():
    from dmljax._src.bench import hlo

    pad = dml.PaddingOperatorDesc(
        input_tensor=t(6), output_tensor=t(8), padding_mode=dml.PaddingMode.CONSTANT,
        padding_value=0.0, start_padding=(1,), end_padding=(1,),
    )  # fmt: skip
    crop = dml.Slice1OperatorDesc(
        input_tensor=t(8), output_tensor=t(4), input_window_offsets=(0,),
        input_window_sizes=(8,), input_window_strides=(2,),
    )  # fmt: skip
    twice = dml.TileOperatorDesc(input_tensor=t(4), output_tensor=t(8), repeats=(2,))
    back = dml.Slice1OperatorDesc(
        input_tensor=t(8), output_tensor=t(8), input_window_offsets=(0,),
        input_window_sizes=(8,), input_window_strides=(-1,),
    )  # fmt: skip
    descs = (TILE, REVERSE, pad, crop, twice, back)
    graph = dml.compile_graph(dml.GraphDesc(
        input_count=1, output_count=1, nodes=tuple(node(d) for d in descs),
        input_edges=(inp(0, 0),), intermediate_edges=tuple(mid(i, i + 1) for i in range(5)),
        output_edges=(out(5),),
    ))  # fmt: skip
    compiled = graph.lower(X).compile()
    assert compiled.as_text().count("ENTRY") == 1  # one program, no host round trip
    one_by_one = []
    y = X
    for desc in descs:
        op = dml.compile_operator(desc)
        one_by_one.append(hlo.kernel_count(op.jitted.lower(y).compile()))
        y = op(y)
    np.testing.assert_array_equal(graph(X)[0], y)
    # Six programs of at least one kernel each; XLA fuses the graph's nodes together.
    assert hlo.kernel_count(compiled) < sum(one_by_one)


def test_jit_vmap_grad_and_export_pass_through_a_graph():
    graph = dml.compile_graph(chain())
    (y,) = jax.jit(graph)(X, IDX)
    np.testing.assert_array_equal(y, [3.0, 2.0])
    (batched,) = jax.vmap(graph, in_axes=(0, None))(jnp.stack([X, 2 * X]), IDX)
    np.testing.assert_array_equal(batched, [[3.0, 2.0], [6.0, 4.0]])
    grad = jax.grad(lambda x: graph(x, IDX)[0].sum())(X)
    np.testing.assert_array_equal(grad, [0.0, 1.0, 1.0])  # y = (x[2], x[1])
    hessian = jax.hessian(lambda x: (graph(x, IDX)[0] ** 2).sum())(X)
    np.testing.assert_array_equal(hessian, np.diag([0.0, 2.0, 2.0]))
    (b,) = jax.export.symbolic_shape("b")
    exported = jax.export.export(jax.jit(jax.vmap(graph, in_axes=(0, None))))(
        jax.ShapeDtypeStruct((b, 3), jnp.float32), jax.ShapeDtypeStruct((2,), jnp.int32)
    )
    (again,) = exported.call(jnp.stack([X, 2 * X]), IDX)
    np.testing.assert_array_equal(again, batched)


def test_unused_graph_inputs_take_anything():
    graph = dml.compile_graph(chain(input_count=3))
    (y,) = graph(X, IDX, None)
    np.testing.assert_array_equal(y, [3.0, 2.0])
    assert graph.input_descs == (t(3), t(2, data_type=I32), None)
    with pytest.raises(dml.errors.ArgumentTypeError, match="3 arrays"):
        graph(X, IDX)


def _within(seconds: float, mebibytes: float, call: Callable[[], Any]) -> Any:
    """``call()``'s result or error, asserting it took at most ``seconds`` and ``mebibytes``
    of Python allocations."""
    tracemalloc.start()
    start = time.perf_counter()
    try:
        return call()
    except InvalidArgumentError as error:
        return error
    finally:
        took, (_, peak) = time.perf_counter() - start, tracemalloc.get_traced_memory()
        tracemalloc.stop()
        assert took < seconds, f"{took:.2f} s"
        assert peak < mebibytes * 2**20, f"{peak / 2**20:.1f} MiB"


@pytest.mark.parametrize("count", [2**16 + 1, 2**32 - 1])
def test_graph_counts_up_to_a_uint_are_decided_in_time_and_memory_of_the_edges(count):
    # A UINT count with a handful of edges: refused in a second and 100 MB at most, not
    # by building a list of every missing output or an input desc per input.
    outputs = _within(1, 100, lambda: dml.compile_graph(chain(output_count=count)))
    assert outputs.field == "output_edges"
    assert "no edge for graph output 1" in str(outputs)
    inputs = _within(1, 100, lambda: dml.compile_graph(chain(input_count=count)))
    assert inputs.field == "input_count"
    assert f"at most {2**16} graph inputs" in str(inputs)


def test_the_most_graph_inputs_compile_and_run_in_time():
    graph = _within(2, 100, lambda: dml.compile_graph(chain(input_count=2**16)))
    assert len(graph.input_descs) == 2**16
    assert graph.input_descs[:3] == (t(3), t(2, data_type=I32), None)
    (y,) = graph(X, IDX, *[None] * (2**16 - 2))
    np.testing.assert_array_equal(y, [3.0, 2.0])


def test_an_edge_between_different_descs_reads_the_producers_bytes():
    # TILE's float32[6] output read as uint8[24] by a second TILE: the same 24 bytes.
    as_bytes = dml.TileOperatorDesc(
        input_tensor=t(24, data_type=U8), output_tensor=t(24, data_type=U8), repeats=(1,)
    )
    graph = dml.GraphDesc(
        input_count=1, output_count=1, nodes=(node(TILE), node(as_bytes)),
        input_edges=(inp(0, 0),), intermediate_edges=(mid(0, 1),), output_edges=(out(1),),
    )  # fmt: skip
    (y,) = dml.compile_graph(graph)(X)
    expected = np.tile(np.asarray(X), 2).view(np.uint8)
    np.testing.assert_array_equal(y, expected)


def test_a_strided_edge_is_read_through_the_consumers_layout():
    # A 2x3 TILE output consumed as its transpose: a 3x2 desc with strides (1, 3).
    tile2 = dml.TileOperatorDesc(input_tensor=t(1, 3), output_tensor=t(2, 3), repeats=(2, 1))
    copy = dml.TileOperatorDesc(
        input_tensor=t(3, 2, strides=(1, 3)), output_tensor=t(3, 2), repeats=(1, 1)
    )
    graph = dml.GraphDesc(
        input_count=1, output_count=1, nodes=(node(tile2), node(copy)),
        input_edges=(inp(0, 0),), intermediate_edges=(mid(0, 1),), output_edges=(out(1),),
    )  # fmt: skip
    x = jnp.array([[1.0, 2.0, 3.0]])
    (y,) = dml.compile_graph(graph)(x)
    np.testing.assert_array_equal(y, np.tile(np.asarray(x), (2, 1)).T)


def test_fan_out_and_several_outputs_from_split():
    split = dml.SplitOperatorDesc(input_tensor=t(6), output_tensors=(t(2), t(4)), axis=0)
    join = dml.JoinOperatorDesc(input_tensors=(t(4), t(2)), output_tensor=t(6), axis=0)
    graph = dml.GraphDesc(
        input_count=1, output_count=3, nodes=(node(TILE), node(split), node(join)),
        input_edges=(inp(0, 0),),
        intermediate_edges=(mid(0, 1), mid(1, 2, 0, from_output=1), mid(1, 2, 1, from_output=0)),
        output_edges=(out(2, 0), out(1, 1, from_output=0), out(0, 2)),
    )  # fmt: skip
    rotated, head, tiled = dml.compile_graph(graph)(X)
    np.testing.assert_array_equal(tiled, [1, 2, 3, 1, 2, 3])
    np.testing.assert_array_equal(head, [1, 2])
    np.testing.assert_array_equal(rotated, [3, 1, 2, 3, 1, 2])


def test_an_absent_optional_output_needs_no_edge_and_gives_none():
    # RNN's sequence output bound, its single output absent: nothing reads it, nothing may.
    rnn = dml.RnnOperatorDesc(
        input_tensor=t(1, 2, 1, 1), weight_tensor=t(1, 1, 1, 1), recurrence_tensor=t(1, 1, 1, 1),
        output_sequence_tensor=t(2, 1, 1, 1),
        activation_descs=(dml.ActivationReluOperatorDesc(),),
        direction=dml.RecurrentNetworkDirection.FORWARD,
    )  # fmt: skip
    graph = dml.GraphDesc(
        input_count=3, output_count=1, nodes=(node(rnn),),
        input_edges=(inp(0, 0, 0), inp(1, 0, 1), inp(2, 0, 2)), output_edges=(out(0),),
    )  # fmt: skip
    ones = np.ones((1, 1, 1, 1), np.float32)
    (y,) = dml.compile_graph(graph)(np.array([1, 2], np.float32).reshape(1, 2, 1, 1), ones, ones)
    np.testing.assert_array_equal(y.ravel(), [1, 3])
    from_absent = dataclasses.replace(graph, output_edges=(out(0, from_output=1),))
    with pytest.raises(InvalidArgumentError, match="output_single_tensor is absent") as e:
        dml.compile_graph(from_absent)
    assert e.value.field == "output_edges[0].from_node_output_index"


def test_a_constant_node_feeds_its_bytes_from_feature_level_6_2():
    constant = dml.ConstantDataGraphNodeDesc(data=np.array([5, 0], np.int32).tobytes(), name="idx")
    graph = chain(
        input_count=1,
        nodes=(node(TILE), node(REVERSE), node(GATHER), constant),
        input_edges=(inp(0, 0),),
        intermediate_edges=(mid(0, 1), mid(1, 2), mid(3, 2, 1)),
    )
    (y,) = dml.compile_graph(graph, feature_level=dml.FeatureLevel.FL_6_2)(X)
    np.testing.assert_array_equal(y, [1.0, 3.0])
    helpers.refused(
        lambda: dml.compile_graph(graph, feature_level=dml.FeatureLevel.FL_6_1),
        field="nodes[3]",
        match="FL_6_2",
    )


# --- One rule, one test (section 1.4 of the graph research) --------------------------------------


HALF = dml.Slice1OperatorDesc(
    input_tensor=t(6), output_tensor=t(3),
    input_window_offsets=(0,), input_window_sizes=(3,), input_window_strides=(1,),
)  # fmt: skip
BAD_AXIS = dml.GatherOperatorDesc(
    input_tensor=t(6), indices_tensor=t(2, data_type=I32), output_tensor=t(2),
    axis=1, index_dimensions=1,
)  # fmt: skip
FOUR = (node(TILE), node(REVERSE), node(GATHER), node(TILE))
OWNED = dml.TensorFlags.OWNED_BY_DML
OWNED_REVERSE = dataclasses.replace(
    REVERSE, input_tensor=dataclasses.replace(REVERSE.input_tensor, flags=OWNED)
)
OWNED_TILE = dataclasses.replace(TILE, input_tensor=dataclasses.replace(t(3), flags=OWNED))
RULES = {
    # G1: no cycles.
    "G1 cycle": ({"input_edges": (inp(1, 2, 1),),
                  "intermediate_edges": (mid(0, 1), mid(1, 2), mid(2, 0))},
                 "intermediate_edges", "cycle"),
    # G2: every input and output connected.
    "G2 input": ({"input_edges": (inp(0, 0),)}, "nodes[2].operator.indices_tensor", "connected"),
    "G2 input of a node": ({"intermediate_edges": (mid(0, 1),), "output_edges": (out(1),)},
                           "nodes[2].operator.input_tensor", "connected"),
    "G2 output": ({"intermediate_edges": (mid(0, 1), mid(1, 2)), "output_count": 2,
                   "nodes": FOUR, "input_edges": (inp(0, 0), inp(1, 2, 1), inp(0, 3)),
                   "output_edges": (out(2),)}, "output_edges", "graph output 1"),
    "G2 output of a node": ({"nodes": FOUR, "input_edges": (inp(0, 0), inp(1, 2, 1), inp(0, 3))},
                            "nodes[3].operator.output_tensor", "no edge reads"),
    # G7: indices in range.
    "G7 graph input": ({"input_edges": (inp(2, 0), inp(1, 2, 1))},
                       "input_edges[0].graph_input_index", "less than 2"),
    "G7 node": ({"input_edges": (inp(0, 3), inp(1, 2, 1))},
                "input_edges[0].to_node_index", "less than 3"),
    "G7 node input": ({"input_edges": (inp(0, 0, 1), inp(1, 2, 1))},
                      "input_edges[0].to_node_input_index", "node 0 has 1 inputs"),
    "G7 node output": ({"intermediate_edges": (mid(0, 1, from_output=1), mid(1, 2))},
                       "intermediate_edges[0].from_node_output_index", "node 0 has 1 outputs"),
    "G7 graph output": ({"output_edges": (out(2, 1),)},
                        "output_edges[0].graph_output_index", "less than 1"),
    "G7 output node": ({"output_edges": (out(5),)}, "output_edges[0].from_node_index",
                       "less than 3"),
    # G9: one source per input, one edge per graph output.
    "G9 two sources": ({"input_edges": (inp(0, 0), inp(1, 2, 1), inp(0, 1))},
                       "intermediate_edges[0]", "input_edges[2] feeds it"),
    "G9 two edges to an output": ({"output_edges": (out(2), out(1))},
                                  "output_edges[1].graph_output_index", "output_edges[0] fills it"),
    "G9 no edge to an output": ({"output_edges": ()}, "output_edges", "no edge for graph output 0"),
    # G3: an OWNED_BY_DML input is fed by a graph input, whose consumers all agree.
    "G3 owned input fed by a node": ({"nodes": (node(TILE), node(OWNED_REVERSE), node(GATHER))},
                                     "intermediate_edges[0]", "OWNED_BY_DML"),
    "G3 mixed consumers": ({"nodes": (*FOUR[:3], node(OWNED_TILE)), "output_count": 2,
                            "input_edges": (inp(0, 0), inp(1, 2, 1), inp(0, 3)),
                            "output_edges": (out(2), out(3, 1))},
                           "input_edges[2]", "use or omit the flag alike"),
    # G4: equal byte sizes across an edge.
    "G4 bytes": ({"nodes": (node(TILE), node(HALF), node(GATHER))},
                 "intermediate_edges[1]", "equal total_tensor_size_in_bytes"),
    # A node's own rules, at the graph's feature level, named under the node.
    "node rules": ({"nodes": (node(TILE), node(REVERSE), node(BAD_AXIS))},
                   "nodes[2].operator.axis", "axis"),
}  # fmt: skip


@pytest.mark.parametrize("rule", RULES)
def test_each_graph_rule_is_an_error_naming_its_field(rule):
    changes, field, fragment = RULES[rule]
    with pytest.raises(InvalidArgumentError) as e:
        dml.compile_graph(chain(**changes))
    assert e.value.field == field
    assert fragment in str(e.value)
    assert e.value.op == "GraphDesc"


def test_graphs_need_feature_level_2_1_and_constants_enough_bytes():
    with pytest.raises(InvalidArgumentError, match="FL_2_1") as e:
        dml.compile_graph(chain(), feature_level=dml.FeatureLevel.FL_2_0)
    assert e.value.field == "feature_level"
    short = dml.ConstantDataGraphNodeDesc(data=np.array([5], np.int32).tobytes())
    graph = chain(input_count=1, nodes=(node(TILE), node(REVERSE), node(GATHER), short),
                  input_edges=(inp(0, 0),),
                  intermediate_edges=(mid(0, 1), mid(1, 2), mid(3, 2, 1)))  # fmt: skip
    with pytest.raises(InvalidArgumentError, match="at least 8 bytes") as e:
        dml.compile_graph(graph)
    assert e.value.field == "nodes[3].data"
    with pytest.raises(InvalidArgumentError, match="an operator node") as e:
        dml.compile_graph(dml.GraphDesc(input_count=0, output_count=1, nodes=(short,),
                                        output_edges=(out(0),)))  # fmt: skip
    assert e.value.field == "output_edges[0].from_node_index"


def test_an_owned_by_dml_input_fed_by_a_graph_input_is_an_ordinary_argument():
    owned_gather = dataclasses.replace(
        GATHER, indices_tensor=dataclasses.replace(GATHER.indices_tensor, flags=OWNED)
    )
    graph = dml.compile_graph(chain(nodes=(node(TILE), node(REVERSE), node(owned_gather))))
    np.testing.assert_array_equal(graph(X, IDX)[0], dml.compile_graph(chain())(X, IDX)[0])
    helpers.refused(
        lambda: dml.compile_operator(
            dataclasses.replace(TILE, output_tensor=owned_gather.indices_tensor)
        ),
        field="output_tensor.flags",
        match="inputs only",
    )


def test_descs_are_typed_like_directml_structs():
    with pytest.raises(dml.errors.ArgumentTypeError) as e:
        dml.GraphDesc(input_count=1, output_count=1, nodes=(TILE,))  # pyright: ignore[reportArgumentType]
    assert e.value.field == "nodes[0]"
    with pytest.raises(InvalidArgumentError) as e:
        inp(-1, 0)
    assert e.value.field == "graph_input_index"
    with pytest.raises(InvalidArgumentError) as e:
        out(2**32)
    assert e.value.field == "from_node_index"
    with pytest.raises(dml.errors.ArgumentTypeError):
        dml.OperatorGraphNodeDesc(operator=t(2))  # pyright: ignore[reportArgumentType]
    assert hash(chain()) == hash(chain())


# --- A one-node graph is the operator ------------------------------------------------------------


def _one_node_graph(desc):
    slots_in = node_slots(node(desc), Role.INPUT)
    slots_out = node_slots(node(desc), Role.OUTPUT)
    present = [i for i, s in enumerate(slots_in) if s.tensor is not None]
    return dml.GraphDesc(
        input_count=len(present),
        output_count=len(slots_out),
        nodes=(node(desc),),
        input_edges=tuple(inp(j, 0, slot) for j, slot in enumerate(present)),
        output_edges=tuple(out(0, k, from_output=k) for k in range(len(slots_out))),
    )


RUNNABLE = [
    e for e in doc_examples.entries()
    if e["op"] in doc_examples.BUILDERS and e["status"] in doc_examples.CHECKED_STATUSES
]  # fmt: skip


@pytest.mark.parametrize("entry", RUNNABLE, ids=lambda e: e["id"])
def test_a_one_node_graph_equals_compile_operator_for_every_doc_example(entry):
    example = doc_examples.build(entry)
    needs_x64 = any(
        dml.DataType[tensor["dtype"]].is_64_bit
        for tensor in (*entry["inputs"].values(), entry["expected"])
    )
    with jax.enable_x64(True) if needs_x64 else contextlib.nullcontext():
        options = {"feature_level": dml.FeatureLevel.LATEST, **example.options}
        direct = dml.compile_operator(example.desc, **options)(*example.inputs)
        graph = dml.compile_graph(_one_node_graph(example.desc), **options)
        results = graph(*example.inputs)
    expected = direct if isinstance(direct, tuple) else (direct,)
    assert len(results) == len(expected)
    for got, want in zip(results, expected, strict=True):
        np.testing.assert_array_equal(got, want)
        assert got.dtype == want.dtype


# --- Random graphs against a node-by-node evaluation over bytes ----------------------------------


def _views(n, draw):
    """A desc that reads the 4 * n bytes of a float32[n] tensor: itself, its bits as int32,
    or another shape of it."""
    shapes = [(n,)] + [(a, n // a) for a in range(2, n) if n % a == 0]
    sizes = draw(st.sampled_from(shapes))
    return t(*sizes, data_type=draw(st.sampled_from([F32, I32])))


def _random_node(draw, view):
    """An operator reading ``view``, and its NumPy evaluation with reference.py."""
    kind = draw(st.sampled_from(["tile", "slice1", "pad", "split"]))
    rank = len(view.sizes)
    if kind == "split" and (rank != 1 or view.sizes[0] < 2):
        kind = "tile"  # DirectML has no empty tensors: a split needs two elements
    if kind == "tile":
        repeats = tuple(draw(st.integers(1, 2)) for _ in range(rank))
        sizes = tuple(s * r for s, r in zip(view.sizes, repeats, strict=True))
        desc = dml.TileOperatorDesc(
            input_tensor=view, output_tensor=t(*sizes, data_type=view.data_type), repeats=repeats
        )
        return desc, lambda x: [reference.tile(x, repeats)]
    if kind == "slice1":
        offsets, sizes, strides, outputs = [], [], [], []
        for size in view.sizes:
            offset = draw(st.integers(0, size - 1))
            window = draw(st.integers(1, size - offset))
            stride = draw(st.sampled_from([1, 2, -1, -2]))
            offsets.append(offset)
            sizes.append(window)
            strides.append(stride)
            outputs.append(-(-window // abs(stride)))
        desc = dml.Slice1OperatorDesc(
            input_tensor=view,
            output_tensor=t(*outputs, data_type=view.data_type),
            input_window_offsets=tuple(offsets),
            input_window_sizes=tuple(sizes),
            input_window_strides=tuple(strides),
        )
        return desc, lambda x: [
            reference.slice1(x, offsets=offsets, sizes=sizes, strides=strides, output_sizes=outputs)
        ]
    if kind == "pad":
        start = tuple(draw(st.integers(0, 2)) for _ in range(rank))
        end = tuple(draw(st.integers(0, 2)) for _ in range(rank))
        sizes = tuple(s + a + b for s, a, b in zip(view.sizes, start, end, strict=True))
        desc = dml.PaddingOperatorDesc(
            input_tensor=view,
            output_tensor=t(*sizes, data_type=view.data_type),
            padding_mode=dml.PaddingMode.CONSTANT,
            padding_value=0.0,
            start_padding=start,
            end_padding=end,
        )
        return desc, lambda x: [reference.pad(x, start, end, mode="constant", value=0)]
    (n,) = view.sizes
    first = draw(st.integers(1, n - 1))
    parts = (first, n - first)
    desc = dml.SplitOperatorDesc(
        input_tensor=view,
        output_tensors=tuple(t(p, data_type=view.data_type) for p in parts),
        axis=0,
    )
    return desc, lambda x: reference.split(x, parts, axis=0)


def _read(data: bytes, tensor):
    count = math.prod(tensor.sizes)
    return np.frombuffer(data[: count * tensor.dtype.itemsize], tensor.dtype).reshape(tensor.sizes)


@hypothesis.settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_random_graphs_equal_a_node_by_node_evaluation_over_bytes(data):
    draw = data.draw
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    input_count = draw(st.integers(1, 2))
    # Each value: (its bytes, its array (None for a graph input), where it comes from).
    values: list[tuple[bytes, Any, tuple[Any, ...]]] = [
        (
            rng.standard_normal(draw(st.integers(1, 6))).astype(np.float32).tobytes(),
            None,
            ("input", j),
        )
        for j in range(input_count)
    ]
    nodes, evaluations, input_edges, intermediate_edges = [], [], [], []
    outputs_of: list[list[int]] = []  # the value indices of each node's outputs
    consumed = set()
    for i in range(draw(st.integers(2, 12))):
        sources = [draw(st.integers(0, len(values) - 1))]
        if draw(st.booleans()):  # JOIN: two vectors of one dtype (perhaps the same one twice)
            sources.append(draw(st.integers(0, len(values) - 1)))
            data_type = draw(st.sampled_from([F32, I32]))
            views = [t(len(values[v][0]) // 4, data_type=data_type) for v in sources]
            total = sum(v.sizes[0] for v in views)
            desc = dml.JoinOperatorDesc(
                input_tensors=tuple(views), output_tensor=t(total, data_type=data_type), axis=0
            )

            evaluate: Callable[..., list[np.ndarray]] = lambda *xs: [reference.join(xs, axis=0)]
        else:
            views = [_views(len(values[sources[0]][0]) // 4, draw)]
            desc, evaluate = _random_node(draw, views[0])
        nodes.append(node(desc))
        evaluations.append((sources, views, evaluate))
        for slot, source in enumerate(sources):
            consumed.add(source)
            origin = values[source][2]
            if origin[0] == "input":
                input_edges.append(inp(origin[1], i, slot))
            else:
                intermediate_edges.append(mid(origin[1], i, slot, from_output=origin[2]))
        # Run it now over bytes, as DirectML would: the consumer reads the producer's bytes.
        arrays = [_read(values[v][0], view) for v, view in zip(sources, views, strict=True)]
        results = evaluate(*arrays)
        outputs_of.append([])
        for k, result in enumerate(results):
            # A float32 vector of the same bytes, for the next consumers to view.
            as_f32 = np.ascontiguousarray(result).view(np.float32).reshape(-1)
            outputs_of[-1].append(len(values))
            values.append((as_f32.tobytes(), result, ("node", i, k)))
    # Every node output no node reads is a graph output (DirectML: outputs must be connected).
    output_edges, expected = [], []
    for i, (desc_node, _) in enumerate(zip(nodes, evaluations, strict=True)):
        slots = node_slots(desc_node, Role.OUTPUT)
        for k in range(len(slots)):
            index = next((v for v in outputs_of[i] if values[v][2] == ("node", i, k)), None)
            if index is None or index not in consumed:
                output_edges.append(out(i, len(output_edges), from_output=k))
                expected.append(None if index is None else values[index][1])
    graph = dml.GraphDesc(
        input_count=input_count,
        output_count=len(output_edges),
        nodes=tuple(nodes),
        input_edges=tuple(input_edges),
        intermediate_edges=tuple(intermediate_edges),
        output_edges=tuple(output_edges),
    )
    compiled = dml.compile_graph(graph)
    arguments = [
        None if tensor is None else _read(values[j][0], tensor)
        for j, tensor in enumerate(compiled.input_descs)
    ]
    got = compiled(*arguments)
    for result, want, tensor in zip(got, expected, compiled.output_descs, strict=True):
        assert tensor is not None
        assert result.shape == tensor.sizes
        if want is not None:  # compare bits: a float32 view of int32 bits may be a NaN
            np.testing.assert_array_equal(
                np.asarray(result).view(np.uint32), np.asarray(want).view(np.uint32)
            )


def test_compiled_operators_and_graphs_pickle_as_descs_compiled_again():
    # For multiprocessing: a pickle holds the desc and options, and loading compiles and
    # checks them again (through the same caches, so in one process it is the same object).
    import multiprocessing
    import pickle

    graph = dml.compile_graph(chain(), feature_level=dml.FeatureLevel.FL_5_0)
    operator = dml.compile_operator(GATHER, deterministic=True)
    assert pickle.loads(pickle.dumps(graph)) is graph
    assert pickle.loads(pickle.dumps(operator)) is operator
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        (y,), gathered = pool.apply(_run_pickled, (graph, operator))
    np.testing.assert_array_equal(y, [3.0, 2.0])
    np.testing.assert_array_equal(gathered, [1.0, 5.0])


def _run_pickled(graph, operator):
    """In a new process: both run (and kept their options)."""
    assert graph.feature_level == dml.FeatureLevel.FL_5_0
    assert operator.deterministic
    ys = graph(np.array([1.0, 2.0, 3.0], np.float32), np.array([0, 4], np.int32))
    gathered = operator(np.arange(6.0, dtype=np.float32) + 1, np.array([0, 4], np.int32))
    return [np.asarray(y) for y in ys], np.asarray(gathered)
