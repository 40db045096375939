"""CONVOLUTION's doc examples, selftest sweep and bench cases: what checks and measures
the operator :mod:`dmljax._src.ops.convolution` declares, loaded on use only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jax
import numpy as np

from dmljax._src.bench import operands
from dmljax._src.bench.case import Case, EagerCase
from dmljax._src.checking import reference, sweeps
from dmljax._src.checking.operator_checks import (
    FLOATS,
    DocumentedBand,
    OperatorChecks,
    data_of,
)
from dmljax._src.dtypes import DataType
from dmljax._src.feature_levels import FeatureLevel
from dmljax._src.ops.convolution import (
    CONVOLUTION,
    FACE_DTYPES,
    ConvolutionOperatorDesc,
    convolution,
)
from dmljax._src.tensor_desc import TensorDesc

_SOURCE = (
    "dmljax: the DML_CONVOLUTION_OPERATOR_DESC page (MicrosoftDocs/sdk-api, "
    "sdk-api-src/content/directml/ns-directml-dml_convolution_operator_desc.md) has no example"
)


def _tensor(sizes: list[int], data: list[Any]) -> dict[str, Any]:
    return {"sizes": sizes, "dtype": "FLOAT32", "data": data}


def _attrs(direction: str, spatial: int, **given: Any) -> dict[str, Any]:
    attrs = {
        "Mode": "DML_CONVOLUTION_MODE_CROSS_CORRELATION",
        "Direction": f"DML_CONVOLUTION_DIRECTION_{direction}",
        "Strides": [1] * spatial, "Dilations": [1] * spatial, "StartPadding": [0] * spatial,
        "EndPadding": [0] * spatial, "OutputPadding": [0] * spatial, "GroupCount": 1,
    }  # fmt: skip
    return attrs | given


EXAMPLES = (
    {
        "id": "convolution-dmljax-2d-average",
        "op": "DML_OPERATOR_CONVOLUTION",
        "source": _SOURCE,
        "attrs": _attrs("FORWARD", 2),
        "inputs": {
            "InputTensor": _tensor([1, 1, 3, 3], [[[[1, 2, 3], [4, 5, 6], [7, 8, 9]]]]),
            "FilterTensor": _tensor([1, 1, 2, 2], [[[[0.5, 0.5], [0.5, 0.5]]]]),
        },
        # Each output is half the sum of a 2x2 window: (1 + 2 + 4 + 5) / 2 = 6, ...
        "expected": _tensor([1, 1, 2, 2], [[[[6, 8], [12, 14]]]]),
        "notes": "DirectML's dml_convolution_2d.json DxDispatch model.",
        "status": "dmljax",
    },
    {
        "id": "convolution-dmljax-strided-flipped",
        "op": "DML_OPERATOR_CONVOLUTION",
        "source": _SOURCE,
        "attrs": _attrs("FORWARD", 1, Mode="DML_CONVOLUTION_MODE_CONVOLUTION", Strides=[2],
                        StartPadding=[1], OutputPadding=[1]),
        "inputs": {
            "InputTensor": _tensor([1, 1, 4], [[[1, 2, 3, 4]]]),
            "FilterTensor": _tensor([1, 1, 2], [[[1, -1]]]),
            "BiasTensor": _tensor([1, 1, 1], [[[10]]]),
        },
        # The filter flipped to (-1, 1) over the input padded to (0, 1, 2, 3, 4), stride 2:
        # 1 - 0 = 1 and 3 - 2 = 1, plus the bias 10, then one zero of output padding.
        "expected": _tensor([1, 1, 3], [[[11, 11, 0]]]),
        "notes": "CONVOLUTION mode flips the filter; StartPadding, Strides, BiasTensor, "
        "OutputPadding.",
        "status": "dmljax",
    },
    {
        "id": "convolution-dmljax-backward-grouped",
        "op": "DML_OPERATOR_CONVOLUTION",
        "source": _SOURCE,
        "attrs": _attrs("BACKWARD", 1, Strides=[2], GroupCount=2),
        "inputs": {
            "InputTensor": _tensor([1, 2, 2], [[[1, 2], [3, 4]]]),
            "FilterTensor": _tensor([2, 1, 3], [[[1, 1, 1]], [[1, 0, -1]]]),
        },
        # Each input channel spreads into its own output channel, input i at 2 * i:
        # channel 0: 1 * (1, 1, 1) at 0 and 2 * (1, 1, 1) at 2; channel 1 likewise with
        # (1, 0, -1).
        "expected": _tensor([1, 2, 5], [[[1, 1, 3, 2, 2], [3, 0, 1, 0, -4]]]),
        "notes": "A transposed convolution (Direction BACKWARD), two groups of one channel.",
        "status": "dmljax",
    },
)  # fmt: skip


def _doc_example_face(example: Any) -> jax.Array:
    desc = example.desc
    x, w, *b = example.inputs
    return convolution(
        x, w, b[0] if b else None, strides=desc.strides, dilations=desc.dilations,
        start_padding=desc.start_padding, end_padding=desc.end_padding,
        output_padding=desc.output_padding, group_count=desc.group_count,
        mode=desc.mode.function_name, direction=desc.direction.function_name,
    )  # fmt: skip


def _leaves_an_output(
    sizes: Sequence[int], taps: Sequence[int], fields: dict[str, Any], backward: bool
) -> bool:
    """Whether every spatial dimension's output has an element (else the draw is refused)."""
    for i, (size, tap) in enumerate(zip(sizes, taps, strict=True)):
        window = (tap - 1) * fields["dilations"][i] + 1
        padding = fields["start_padding"][i] + fields["end_padding"][i]
        if backward and (size - 1) * fields["strides"][i] + window - padding < 1:
            return False
        if not backward and size + padding < window:
            return False
    return True


def _sweep(rng: np.random.Generator, dtype: np.dtype[Any], batch: int = 2) -> Any:
    """A 1-D to 3-D convolution, either direction and mode, strides, dilations, paddings
    and groups, with or without a bias; small integers (every partial sum exact in every
    float type). The input and the bias are the arguments, the filter a constant."""
    while True:
        spatial = int(rng.integers(1, 3, endpoint=True))
        groups = int(rng.choice([1, 2]))
        backward = bool(rng.integers(0, 2))
        channels = groups * int(rng.integers(1, 2, endpoint=True))
        per_group = int(rng.integers(1, 2, endpoint=True))
        sizes = sweeps.draw_shape(rng, spatial, 1, 4)
        taps = sweeps.draw_shape(rng, spatial, 1, 3)
        fields = {
            name: tuple(int(v) for v in rng.integers(low, high, spatial, endpoint=True))
            for name, low, high in (("strides", 1, 2), ("dilations", 1, 2),
                                    ("start_padding", 0, 1), ("end_padding", 0, 1),
                                    ("output_padding", 0, 1))
        }  # fmt: skip
        if _leaves_an_output(sizes, taps, fields, backward):
            break
    mode = str(rng.choice(["cross_correlation", "convolution"]))
    direction = "backward" if backward else "forward"
    out_channels = groups * per_group
    filter_shape = (
        (channels, per_group, *taps) if backward else (out_channels, channels // groups, *taps)
    )
    # The filter is a constant of the draw, the input and the bias its arguments: a vmap
    # over filters is a convolution grouped by the batch, whose group count a symbolic
    # batch (jax.export) cannot give; tests/test_convolution.py vmaps filters itself.
    w = rng.integers(-2, 2, size=filter_shape, endpoint=True).astype(dtype)
    shapes = [(1, channels, *sizes)]
    with_bias = bool(rng.integers(0, 2))
    shapes += [(1, out_channels) + (1,) * spatial] if with_bias else []
    args = tuple(
        tuple(rng.integers(-2, 2, size=shape, endpoint=True).astype(dtype) for shape in shapes)
        for _ in range(batch)
    )
    kwargs: dict[str, Any] = dict(fields, group_count=groups, mode=mode, direction=direction)

    def fn(x: Any, b: Any = None) -> jax.Array:
        # In the argument's type: a check may widen the arguments (to float64).
        return convolution(x, w.astype(x.dtype), b, **kwargs)

    def want(x: Any, b: Any = None) -> np.ndarray:
        return reference.convolution(x, w, b, **kwargs)

    described = " ".join(f"{k} {v}" for k, v in fields.items() if any(v) and set(v) != {1})
    return sweeps.SweepCase(
        label=f"{sweeps.label(shapes[0], dtype)} * {filter_shape} {direction} {mode}"
        f"{f' groups {groups}' if groups > 1 else ''}{f' {described}' if described else ''}"
        f"{' + bias' if with_bias else ''}",
        fn=fn,
        batch=args,
        expected=tuple(want(*x) for x in args),
        linear_argnums=tuple(range(len(shapes))),
        linear=True,  # the input convolved with a constant filter, plus the bias
    )


def _bench() -> list[Case | EagerCase]:
    """A ResNet-sized 3x3 convolution (batch 32, 64 to 64 channels, 56x56) against
    ``lax.conv_general_dilated`` at the same precision, HIGHEST (DirectML's default) and
    the backend's default with ``allow_half_precision``; a transposed one (stride 2)
    against ``lax.conv_transpose``."""

    def make_args(key: jax.Array, quick: bool) -> tuple[jax.Array, ...]:
        batch, size = (2, 16) if quick else (32, 56)
        keys = jax.random.split(key, 2)
        return operands.normal(keys[0], (batch, 64, size, size)), operands.normal(
            keys[1], (64, 64, 3, 3)
        )

    def tiny(key: jax.Array) -> tuple[jax.Array, ...]:
        x = operands.tiny_operands(key)[0]  # 8x8
        return (x.reshape(1, 1, 8, 8), x[:3, :3].reshape(1, 1, 3, 3))

    def moved_by(fn: Any) -> Any:
        """The operands read once and ``fn``'s output written once (a transposed
        convolution's is 4x its input at stride 2)."""
        return lambda args: sum(x.nbytes for x in args) + operands.output_nbytes(fn, args)

    highest = jax.lax.Precision.HIGHEST

    def reference_conv(x: jax.Array, w: jax.Array, precision: Any = highest) -> jax.Array:
        return jax.lax.conv_general_dilated(x, w, (1, 1), ((1, 1), (1, 1)), precision=precision)

    def reference_transpose(x: jax.Array, w: jax.Array) -> jax.Array:
        # The backward filter is the forward convolution's kernel (OIHW, O the backward
        # input's channels), which transpose_kernel=True flips and transposes.
        return jax.lax.conv_transpose(
            x, w, (2, 2), ((1, 1), (1, 1)), dimension_numbers=("NCHW", "OIHW", "NCHW"),
            transpose_kernel=True, precision=highest,
        )  # fmt: skip

    same: dict[str, Any] = {"start_padding": (1, 1), "end_padding": (1, 1)}
    return [
        Case(
            name="convolution 3x3",
            operator="CONVOLUTION",
            make_args=make_args,
            dmljax_fn=lambda x, w: convolution(x, w, **same),
            jnp_fn=lambda x, w: reference_conv(x, w, highest),
            bytes_moved=moved_by(reference_conv),
        ),
        Case(
            name="convolution 3x3 half precision",
            operator="CONVOLUTION",
            make_args=make_args,
            dmljax_fn=lambda x, w: convolution(x, w, allow_half_precision=True, **same),
            jnp_fn=lambda x, w: reference_conv(x, w, None),
            bytes_moved=moved_by(reference_conv),
        ),
        Case(
            name="convolution backward stride 2",
            operator="CONVOLUTION",
            make_args=make_args,
            dmljax_fn=lambda x, w: convolution(
                x,
                w,
                strides=(2, 2),
                start_padding=(1, 1),
                end_padding=(1, 1),
                direction="backward",
            ),
            jnp_fn=reference_transpose,
            bytes_moved=moved_by(reference_transpose),
            # The same program as jnp's, but a GPU's autotuner may pick another cuDNN
            # algorithm for each: sums of up to 576 terms, each within 576 * 2**-24 of
            # the magnitudes (1.5 million of 25 million elements differed on an H200).
            relative_tolerance=2 * 576 * 2.0**-24,
        ),
        EagerCase(
            name="convolution eager",
            operator="CONVOLUTION",
            desc=lambda x, w: ConvolutionOperatorDesc(
                input_tensor=TensorDesc.from_array(x),
                filter_tensor=TensorDesc.from_array(w),
                output_tensor=TensorDesc(data_type=DataType.FLOAT32, sizes=(1, 1, 6, 6)),
                strides=(1, 1),
                dilations=(1, 1),
                start_padding=(0, 0),
                end_padding=(0, 0),
                output_padding=(0, 0),
            ),
            functional=lambda x, w: convolution(x, w),
            jnp_fn=lambda x, w: jax.lax.conv_general_dilated(
                x, w, (1, 1), "VALID", precision=highest
            ),
            make_args=tiny,
        ),
    ]


_DOCUMENTED: dict[FeatureLevel, DocumentedBand] = {
    FeatureLevel.FL_1_0: ((4, 5), FLOATS, None),
    FeatureLevel.FL_4_0: ((3, 5), FLOATS, None),
}


def _support_case(
    rank: int, data_type: DataType, index_type: DataType
) -> tuple[Any, tuple[np.ndarray, ...]]:
    del index_type  # CONVOLUTION's tensors all have one type
    spatial = max(rank - 2, 1)
    # Input, filter, bias (every input field bound), output.
    shapes = [(1, 1, *(2,) * spatial), (1, 1, *(1,) * spatial), (1, 1, *(1,) * spatial),
              (1, 1, *(2,) * spatial)]  # fmt: skip
    if rank < 3:  # no spatial dimension: refused by the table before any rule reads them
        shapes = [(2,) * rank] * 4
    tensors = [TensorDesc(data_type=data_type, sizes=shape) for shape in shapes]
    desc = ConvolutionOperatorDesc(
        input_tensor=tensors[0], filter_tensor=tensors[1], bias_tensor=tensors[2],
        output_tensor=tensors[3], strides=(1,) * spatial, dilations=(1,) * spatial,
        start_padding=(0,) * spatial, end_padding=(0,) * spatial, output_padding=(0,) * spatial,
    )  # fmt: skip
    return desc, tuple(data_of(shape, data_type) for shape in shapes[:3])


def _fixed_size(k: int, d: int, arrays: Any, error: Any) -> bool:
    """The input's channels (the filter's layout fixes them) and every size of the bias
    (``{1, OutputChannelCount, 1, ...}``) may refuse a symbol; the input's batch and
    spatial sizes may not."""
    del arrays, error
    return (k, d) == (0, 1) or k == 1


CHECKS = OperatorChecks(
    CONVOLUTION,
    documented_support=_DOCUMENTED,
    support_case=_support_case,
    doc_example_face=_doc_example_face,
    sweep=_sweep,
    bench=_bench,
    computes="a convolution sums products: its values are arithmetic's (tests/test_convolution.py)",
    face_dtypes=FACE_DTYPES,
    fixed_size=_fixed_size,
    examples=EXAMPLES,
)
