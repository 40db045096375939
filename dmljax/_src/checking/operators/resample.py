"""UPSAMPLE_2D's, RESAMPLE's, RESAMPLE1's and RESAMPLE2's doc examples, selftest sweep and
bench cases: what checks and measures the operators :mod:`dmljax._src.ops.resample`
declares, loaded on use only.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
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
from dmljax._src.enums import AxisDirection, InterpolationMode
from dmljax._src.feature_levels import FeatureLevel
from dmljax._src.ops.resample import (
    FACE_DTYPES,
    RESAMPLE,
    RESAMPLE1,
    RESAMPLE2,
    UPSAMPLE_2D,
    Resample1OperatorDesc,
    Resample2OperatorDesc,
    ResampleOperatorDesc,
    Size2D,
    Upsample2dOperatorDesc,
    resample,
)
from dmljax._src.tensor_desc import TensorDesc

_PAGES = "MicrosoftDocs/sdk-api:sdk-api-src/content/directml/ns-directml-dml_{}_operator_desc.md"
_NONE = "dmljax: the {} page ({}) has no example"


def _tensor(sizes: list[int], data: list[Any]) -> dict[str, Any]:
    return {"sizes": sizes, "dtype": "FLOAT32", "data": data}


_SQUARE = _tensor([1, 1, 2, 2], [[[[1, 2], [3, 4]]]])
_NEAREST = "DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR"
_LINEAR = "DML_INTERPOLATION_MODE_LINEAR"

EXAMPLES = (
    {
        "id": "upsample_2d-dmljax-linear",
        "op": "DML_OPERATOR_UPSAMPLE_2D",
        "source": _NONE.format("DML_UPSAMPLE_2D_OPERATOR_DESC", _PAGES.format("upsample_2d")),
        "attrs": {"ScaleSize": {"Width": 2, "Height": 2}, "InterpolationMode": _LINEAR},
        "inputs": {"InputTensor": _SQUARE},
        # Half-pixel centers: row coordinates (y + 0.5) / 2 - 0.5 = -0.25, 0.25, 0.75, 1.25,
        # clamped to [0, 1]; the columns alike.
        "expected": _tensor([1, 1, 4, 4], [[[[1, 1.25, 1.75, 2], [1.5, 1.75, 2.25, 2.5],
                                             [2.5, 2.75, 3.25, 3.5], [3, 3.25, 3.75, 4]]]]),
        "notes": "DirectML's dml_upsample_2d.json DxDispatch model; DxDispatch's own test "
        "(DxDispatch/CMakeLists.txt, model_test dml_upsample_2d) expects these values.",
        "status": "dmljax",
    },
    {
        "id": "upsample_2d-dmljax-nearest",
        "op": "DML_OPERATOR_UPSAMPLE_2D",
        "source": _NONE.format("DML_UPSAMPLE_2D_OPERATOR_DESC", _PAGES.format("upsample_2d")),
        "attrs": {"ScaleSize": {"Width": 3, "Height": 1}, "InterpolationMode": _NEAREST},
        "inputs": {"InputTensor": _SQUARE},
        "expected": _tensor([1, 1, 2, 6], [[[[1, 1, 1, 2, 2, 2], [3, 3, 3, 4, 4, 4]]]]),
        "notes": "Whole-number scales repeat each element (no coordinate is a tie).",
        "status": "dmljax",
    },
    {
        "id": "resample-dmljax-resample-grad-forward",
        "op": "DML_OPERATOR_RESAMPLE",
        "source": "the DML_RESAMPLE_GRAD_OPERATOR_DESC page (MicrosoftDocs/win32:desktop-src/"
        "direct3d12/directml/ns-directml-dml_resample_grad_operator_desc.md): its forward "
        "RESAMPLE1 of scales 1.5 (width) and 0.5 (height)",
        "attrs": {"InterpolationMode": _NEAREST, "Scales": [1, 1, 0.5, 1.5]},
        "inputs": {"InputTensor": _SQUARE},
        # Columns (x + 0.5) / 1.5 - 0.5 = -1/6, 0.5, 7/6: the tie at 0.5 goes down.
        "expected": _tensor([1, 1, 1, 3], [[[[1, 1, 2]]]]),
        "notes": "The page's nearest-neighbor example, with RESAMPLE's pixel centers.",
        "status": "dmljax",
    },
    {
        "id": "resample1-dmljax-corners-linear",
        "op": "DML_OPERATOR_RESAMPLE1",
        "source": _NONE.format("DML_RESAMPLE1_OPERATOR_DESC", _PAGES.format("resample1")),
        "attrs": {"InterpolationMode": _LINEAR, "Scales": [1, 1, 1, 2],
                  "InputPixelOffsets": [0, 0, 0, 0], "OutputPixelOffsets": [0, 0, 0, 0]},
        "inputs": {"InputTensor": _tensor([1, 1, 1, 3], [[[[0, 4, 8]]]])},
        # Offsets 0 (ONNX's asymmetric): x / 2 = 0, 0.5, 1, 1.5, 2, 2.5 (clamped to 2).
        "expected": _tensor([1, 1, 1, 6], [[[[0, 2, 4, 6, 8, 8]]]]),
        "notes": "Pixel offsets of 0 sample corners.",
        "status": "dmljax",
    },
    {
        "id": "resample2-dmljax-ceil",
        "op": "DML_OPERATOR_RESAMPLE2",
        "source": "MicrosoftDocs/windows-ai-docs:docs/directml/api/"
        "ns-directml-dml_resample2_operator_desc.md has no example (dmljax)",
        "attrs": {"InterpolationMode": _NEAREST,
                  "RoundingDirection": "DML_AXIS_DIRECTION_INCREASING",
                  "Scales": [1, 1, 1, 2], "InputPixelOffsets": [0, 0, 0, 0],
                  "OutputPixelOffsets": [0, 0, 0, 0]},
        "inputs": {"InputTensor": _tensor([1, 1, 1, 3], [[[[5, 6, 7]]]])},
        # x / 2 = 0, 0.5, 1, 1.5, 2, 2.5 rounded up: 0, 1, 1, 2, 2, 3 (clamped to 2).
        "expected": _tensor([1, 1, 1, 6], [[[[5, 6, 6, 7, 7, 7]]]]),
        "notes": "RoundingDirection INCREASING rounds a nearest coordinate up (ceil).",
        "status": "dmljax",
    },
)  # fmt: skip


def _doc_example_face(example: Any) -> jax.Array:
    """The example through :func:`dmljax.resample`, with the desc's scales and offsets."""
    desc = example.desc
    (x,) = example.inputs
    rank = x.ndim
    mode = "linear" if desc.interpolation_mode is InterpolationMode.LINEAR else "nearest"
    if isinstance(desc, Upsample2dOperatorDesc):
        scales = (1.0,) * (rank - 2) + (desc.scale_size.height, desc.scale_size.width)
        return resample(x, desc.output_tensor.sizes, scales, mode=mode)
    if isinstance(desc, ResampleOperatorDesc):
        return resample(x, desc.output_tensor.sizes, desc.scales, mode=mode)
    rounding = "nearest"
    if isinstance(desc, Resample2OperatorDesc):
        up = desc.rounding_direction is AxisDirection.INCREASING
        rounding = "ceil" if up else "floor"
    return resample(
        x, desc.output_tensor.sizes, desc.scales, mode=mode, rounding=rounding,
        input_pixel_offsets=desc.input_pixel_offsets,
        output_pixel_offsets=desc.output_pixel_offsets,
    )  # fmt: skip


_DYADIC = (0.5, 1.0, 2.0, 4.0)
_ANY = (*_DYADIC, 1.5, 0.75, 3.0)


def _sweep(rng: np.random.Generator, dtype: np.dtype[Any], batch: int = 2) -> sweeps.SweepCase:
    """``dml.resample`` of rank 1 to 3 (sizes 1 to 4): scales up and down, the output's
    size the scaled input's or a clamped or cropped one, both modes, every rounding,
    pixel offsets of 0 or centers; integer and 16-bit LINEAR draws keep to scales whose
    weights are exact in binary, so that their results are exact."""
    rank = int(rng.integers(1, 3, endpoint=True))
    shape = sweeps.draw_shape(rng, rank, 1, 4)
    linear = bool(rng.integers(0, 2))
    exact = not linear or not jnp.issubdtype(dtype, jnp.floating) or dtype != np.float32
    scales = tuple(float(s) for s in rng.choice(_DYADIC if exact else _ANY, size=rank))
    out = [int(np.floor(np.float32(n) * np.float32(s))) for n, s in zip(shape, scales, strict=True)]
    if rng.random() < 0.3:
        out = [max(0, n + int(rng.integers(-1, 2))) for n in out]
    centers = exact or bool(rng.integers(0, 2))
    offsets = (0.5, -0.5) if centers else (0.0, 0.0)
    rounding = str(rng.choice(["nearest", "floor", "ceil"]))
    args = tuple((sweeps.draw_values(rng, shape, dtype),) for _ in range(batch))
    mode = "linear" if linear else "nearest"

    def want(x: np.ndarray) -> np.ndarray:
        return reference.resample(
            x, out, scales=scales, input_offsets=(offsets[0],) * rank,
            output_offsets=(offsets[1],) * rank, linear=linear, rounding=rounding,
        )  # fmt: skip

    pixels = {"input_pixel_offsets": offsets[0], "output_pixel_offsets": offsets[1]}
    magnitude = max(float(np.max(np.abs(np.asarray(x, np.float64)), initial=0)) for (x,) in args)
    return sweeps.SweepCase(
        label=f"{sweeps.label(shape, dtype)} to {tuple(out)} scales {scales} {mode} {rounding}"
        f"{'' if centers else ' corners'}",
        fn=lambda x: resample(x, tuple(out), scales, mode=mode, rounding=rounding, **pixels),
        batch=args,
        expected=tuple(want(x) for (x,) in args),
        linear_argnums=(0,),
        # LINEAR weighs in float32, one dimension after another: within a few float32
        # roundings of the exact sum; its derivatives are checked to agree.
        linear=not linear,
        ulps=0 if exact else 12,
        magnitude=0.0 if exact else magnitude,
    )


def _bench() -> list[Case | EagerCase]:
    """An image batch upsampled 2x, 8 x 32 x 128 x 128 float32 (16 MiB) to 256 x 256,
    against :func:`jax.image.resize` (half-pixel centers, as RESAMPLE's)."""

    def make_args(key: jax.Array, quick: bool) -> tuple[jax.Array, ...]:
        batch = 1 if quick else 8
        return (operands.normal(key, (batch, 32, 128, 128)),)

    def doubled(x: jax.Array) -> tuple[int, ...]:
        return (*x.shape[:2], 2 * x.shape[2], 2 * x.shape[3])

    def tiny(key: jax.Array) -> tuple[jax.Array, ...]:
        return (operands.tiny_operands(key)[0][:4, :4].reshape(1, 1, 4, 4),)

    def moved(args: Any) -> int:
        return 5 * args[0].nbytes  # the input read, four times as much written

    return [
        Case(
            name="resample nearest 2x",
            operator="RESAMPLE1",
            make_args=make_args,
            dmljax_fn=lambda x: resample(x, doubled(x)),
            jnp_fn=lambda x: jax.image.resize(x, doubled(x), "nearest"),
            bytes_moved=moved,
        ),
        Case(
            name="resample linear 2x",
            operator="RESAMPLE1",
            make_args=make_args,
            dmljax_fn=lambda x: resample(x, doubled(x), mode="linear"),
            jnp_fn=lambda x: jax.image.resize(x, doubled(x), "linear"),
            bytes_moved=moved,
            relative_tolerance=2.0**-21,  # jax.image.resize weighs by a matrix product
        ),
        EagerCase(
            name="resample eager",
            operator="RESAMPLE1",
            desc=lambda x: Resample1OperatorDesc(
                input_tensor=TensorDesc.from_array(x),
                output_tensor=TensorDesc(data_type=DataType.FLOAT32, sizes=(1, 1, 8, 8)),
                interpolation_mode=InterpolationMode.NEAREST_NEIGHBOR,
                scales=(1.0, 1.0, 2.0, 2.0),
                input_pixel_offsets=(0.5,) * 4,
                output_pixel_offsets=(-0.5,) * 4,
            ),
            functional=lambda x: resample(x, (1, 1, 8, 8)),
            jnp_fn=lambda x: jax.image.resize(x, (1, 1, 8, 8), "nearest"),
            make_args=tiny,
        ),
    ]


def _documented(first: FeatureLevel) -> dict[FeatureLevel, DocumentedBand]:
    """RESAMPLE's and RESAMPLE1's tables: 4-D floats from the first level, 1 to 4
    dimensions from 5_1, INT8 and UINT8 from 6_2."""
    return {
        first: ((4, 4), FLOATS, None),
        FeatureLevel.FL_5_1: ((1, 4), FLOATS, None),
        FeatureLevel.FL_6_2: ((1, 4), FLOATS | {DataType.INT8, DataType.UINT8}, None),
    }


def _support_case_of(desc_type: type) -> Any:
    def case(
        rank: int, data_type: DataType, index_type: DataType
    ) -> tuple[Any, tuple[np.ndarray, ...]]:
        del index_type
        sizes = (*(1,) * (rank - 1), 2)
        if desc_type is Upsample2dOperatorDesc:
            desc = Upsample2dOperatorDesc(
                input_tensor=TensorDesc(data_type=data_type, sizes=sizes),
                output_tensor=TensorDesc(data_type=data_type, sizes=(*sizes[:-1], 4)),
                scale_size=Size2D(width=2, height=1),
                interpolation_mode=InterpolationMode.NEAREST_NEIGHBOR,
            )
            return desc, (data_of(sizes, data_type),)
        fields: dict[str, Any] = {
            "input_tensor": TensorDesc(data_type=data_type, sizes=sizes),
            "output_tensor": TensorDesc(data_type=data_type, sizes=(*sizes[:-1], 4)),
            "interpolation_mode": InterpolationMode.NEAREST_NEIGHBOR,
            "scales": (*(1.0,) * (rank - 1), 2.0),
        }
        if desc_type is not ResampleOperatorDesc:
            fields |= {"input_pixel_offsets": (0.5,) * rank, "output_pixel_offsets": (-0.5,) * rank}
        if desc_type is Resample2OperatorDesc:
            fields["rounding_direction"] = AxisDirection.DECREASING
        return desc_type(**fields), (data_of(sizes, data_type),)

    return case


def _fixed_size(k: int, d: int, arrays: Any, error: Any) -> bool:
    """The coordinates are computed from static sizes: a symbol is refused."""
    del k, d, arrays
    return "static sizes (the coordinates are computed from them)" in str(error)


_COMPUTES = "LINEAR weighs elements (tests/test_resample.py holds its bound)"

CHECKS = (
    OperatorChecks(
        RESAMPLE1,
        doc_example_face=_doc_example_face,
        sweep=_sweep,
        bench=_bench,
        documented_support=_documented(FeatureLevel.FL_2_1),
        support_case=_support_case_of(Resample1OperatorDesc),
        fixed_size=_fixed_size,
        face_dtypes=FACE_DTYPES,
        examples=EXAMPLES[3:4],
        computes=_COMPUTES,
    ),
    # RESAMPLE1's face, sweep and bench serve the other three (Operator(served_by=...)).
    OperatorChecks(
        RESAMPLE,
        doc_example_face=_doc_example_face,
        documented_support=_documented(FeatureLevel.FL_2_0),
        support_case=_support_case_of(ResampleOperatorDesc),
        examples=EXAMPLES[2:3],
        computes=_COMPUTES,
    ),
    OperatorChecks(
        RESAMPLE2,
        doc_example_face=_doc_example_face,
        documented_support={FeatureLevel.FL_5_1: ((1, 4), FLOATS, None)},
        support_case=_support_case_of(Resample2OperatorDesc),
        examples=EXAMPLES[4:5],
        computes=_COMPUTES,
    ),
    OperatorChecks(
        UPSAMPLE_2D,
        doc_example_face=_doc_example_face,
        documented_support={FeatureLevel.FL_1_0: ((4, 5), FLOATS, None)},
        support_case=_support_case_of(Upsample2dOperatorDesc),
        examples=EXAMPLES[:2],
        computes=_COMPUTES,
    ),
)
