"""dmljax: DirectML's operator model (GATHER, SCATTER, SLICE1, TILE, ...) in pure JAX.

Two faces, one lowering per operator:

* the desc face mirrors DirectML: build an operator desc, validate it with
  :func:`compile_operator` and call the result;
* the functional face (:func:`tile`, ...) infers everything from the arrays.

>>> import jax.numpy as jnp, dmljax as dml
>>> dml.tile(jnp.array([1, 2]), (3,))
Array([1, 2, 1, 2, 1, 2], dtype=int32)
"""

# The package loads lazily: ``import dmljax`` costs nothing, and each name below loads its
# module (and JAX) on first use, so that ``dmljax --help`` answers without importing JAX.
# The imports under TYPE_CHECKING are the one list of what the package exports: type
# checkers and readers see them, and _EXPORTS reads them from this file's source.
import ast
import importlib
import importlib.metadata
import pathlib
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dmljax import errors as errors
    from dmljax._src.compile import (
        CompiledOperator as CompiledOperator,
        compile_operator as compile_operator,
    )
    from dmljax._src.contract import Operator as Operator
    from dmljax._src.dtypes import DataType as DataType
    from dmljax._src.dxdispatch import (
        DxDispatchModel as DxDispatchModel,
        load_dxdispatch as load_dxdispatch,
    )
    from dmljax._src.enums import (
        AxisDirection as AxisDirection,
        ConvolutionDirection as ConvolutionDirection,
        ConvolutionMode as ConvolutionMode,
        InterpolationMode as InterpolationMode,
        MatrixTransform as MatrixTransform,
        RecurrentNetworkDirection as RecurrentNetworkDirection,
        ReduceFunction as ReduceFunction,
    )
    from dmljax._src.feature_levels import FeatureLevel as FeatureLevel
    from dmljax._src.graph import (
        CompiledGraph as CompiledGraph,
        ConstantDataGraphNodeDesc as ConstantDataGraphNodeDesc,
        GraphDesc as GraphDesc,
        InputGraphEdgeDesc as InputGraphEdgeDesc,
        IntermediateGraphEdgeDesc as IntermediateGraphEdgeDesc,
        OperatorGraphNodeDesc as OperatorGraphNodeDesc,
        OutputGraphEdgeDesc as OutputGraphEdgeDesc,
        compile_graph as compile_graph,
    )
    from dmljax._src.graph_builder import (
        GraphBuilder as GraphBuilder,
        GraphTensor as GraphTensor,
    )
    from dmljax._src.onnx_slice import (
        onnx_slice as onnx_slice,
        onnx_slice_window as onnx_slice_window,
    )
    from dmljax._src.ops import OPERATORS as OPERATORS
    from dmljax._src.ops.argminmax import (
        ArgmaxOperatorDesc as ArgmaxOperatorDesc,
        ArgminOperatorDesc as ArgminOperatorDesc,
        argmax as argmax,
        argmin as argmin,
    )
    from dmljax._src.ops.cast import CastOperatorDesc as CastOperatorDesc, cast as cast

    # The element-wise family: each row's desc and functional face (dml.add, ...).
    from dmljax._src.ops.convolution import (
        ConvolutionOperatorDesc as ConvolutionOperatorDesc,
        convolution as convolution,
    )
    from dmljax._src.ops.cumulative import (
        CumulativeProductOperatorDesc as CumulativeProductOperatorDesc,
        CumulativeSummationOperatorDesc as CumulativeSummationOperatorDesc,
        cumprod as cumprod,
        cumsum as cumsum,
    )
    from dmljax._src.ops.depth_space import DepthSpaceOrder as DepthSpaceOrder
    from dmljax._src.ops.depth_to_space import (
        DepthToSpace1OperatorDesc as DepthToSpace1OperatorDesc,
        DepthToSpaceOperatorDesc as DepthToSpaceOperatorDesc,
        depth_to_space as depth_to_space,
    )
    from dmljax._src.ops.diagonal_matrix import (
        DiagonalMatrixOperatorDesc as DiagonalMatrixOperatorDesc,
        diagonal_matrix as diagonal_matrix,
    )
    from dmljax._src.ops.diagonal_matrix1 import (
        DiagonalMatrix1OperatorDesc as DiagonalMatrix1OperatorDesc,
    )
    from dmljax._src.ops.element_wise import (
        IsInfinityMode as IsInfinityMode,
        RoundingMode as RoundingMode,
        ScaleBias as ScaleBias,
    )
    from dmljax._src.ops.element_wise_names import *  # noqa: F403
    from dmljax._src.ops.fill_value import (
        FillValueConstantOperatorDesc as FillValueConstantOperatorDesc,
        FillValueSequenceOperatorDesc as FillValueSequenceOperatorDesc,
        fill_value_constant as fill_value_constant,
        fill_value_sequence as fill_value_sequence,
    )
    from dmljax._src.ops.gather import GatherOperatorDesc as GatherOperatorDesc, gather as gather
    from dmljax._src.ops.gather_elements import (
        GatherElementsOperatorDesc as GatherElementsOperatorDesc,
        gather_elements as gather_elements,
    )
    from dmljax._src.ops.gather_nd import (
        GatherNdOperatorDesc as GatherNdOperatorDesc,
        gather_nd as gather_nd,
    )
    from dmljax._src.ops.gather_nd1 import GatherNd1OperatorDesc as GatherNd1OperatorDesc
    from dmljax._src.ops.gemm import GemmOperatorDesc as GemmOperatorDesc, gemm as gemm
    from dmljax._src.ops.join import JoinOperatorDesc as JoinOperatorDesc, join as join
    from dmljax._src.ops.one_hot import OneHotOperatorDesc as OneHotOperatorDesc, one_hot as one_hot
    from dmljax._src.ops.padding import (
        PaddingMode as PaddingMode,
        PaddingOperatorDesc as PaddingOperatorDesc,
        pad as pad,
    )
    from dmljax._src.ops.padding1 import Padding1OperatorDesc as Padding1OperatorDesc
    from dmljax._src.ops.quantize import (
        ElementWiseDequantizeLinearOperatorDesc as ElementWiseDequantizeLinearOperatorDesc,
        ElementWiseQuantizedLinearAddOperatorDesc as ElementWiseQuantizedLinearAddOperatorDesc,
        ElementWiseQuantizeLinearOperatorDesc as ElementWiseQuantizeLinearOperatorDesc,
        dequantize_linear as dequantize_linear,
        quantize_linear as quantize_linear,
        quantized_linear_add as quantized_linear_add,
    )
    from dmljax._src.ops.recurrent import (
        GruOperatorDesc as GruOperatorDesc,
        LstmOperatorDesc as LstmOperatorDesc,
        RnnOperatorDesc as RnnOperatorDesc,
        gru as gru,
        lstm as lstm,
        rnn as rnn,
    )
    from dmljax._src.ops.reduce import (
        ReduceOperatorDesc as ReduceOperatorDesc,
        reduce as reduce,
    )
    from dmljax._src.ops.resample import (
        Resample1OperatorDesc as Resample1OperatorDesc,
        Resample2OperatorDesc as Resample2OperatorDesc,
        ResampleOperatorDesc as ResampleOperatorDesc,
        Size2D as Size2D,
        Upsample2dOperatorDesc as Upsample2dOperatorDesc,
        resample as resample,
    )
    from dmljax._src.ops.reverse_subsequences import (
        ReverseSubsequencesOperatorDesc as ReverseSubsequencesOperatorDesc,
        reverse_subsequences as reverse_subsequences,
    )

    # SCATTER, and its newer DirectML names (SCATTER_ELEMENTS: GATHER_ELEMENTS' counterpart).
    from dmljax._src.ops.scatter import (
        ScatterOperatorDesc as ScatterElementsOperatorDesc,
        ScatterOperatorDesc as ScatterOperatorDesc,
        scatter as scatter,
        scatter as scatter_elements,
    )
    from dmljax._src.ops.scatter_nd import (
        ScatterNdOperatorDesc as ScatterNdOperatorDesc,
        scatter_nd as scatter_nd,
    )
    from dmljax._src.ops.slice import SliceOperatorDesc as SliceOperatorDesc
    from dmljax._src.ops.slice1 import Slice1OperatorDesc as Slice1OperatorDesc, slice1 as slice1
    from dmljax._src.ops.slice_grad import (
        SliceGradOperatorDesc as SliceGradOperatorDesc,
        slice_grad as slice_grad,
    )
    from dmljax._src.ops.softmax import (
        ActivationHardmax1OperatorDesc as ActivationHardmax1OperatorDesc,
        ActivationHardmaxOperatorDesc as ActivationHardmaxOperatorDesc,
        ActivationLogSoftmax1OperatorDesc as ActivationLogSoftmax1OperatorDesc,
        ActivationLogSoftmaxOperatorDesc as ActivationLogSoftmaxOperatorDesc,
        ActivationSoftmax1OperatorDesc as ActivationSoftmax1OperatorDesc,
        ActivationSoftmaxOperatorDesc as ActivationSoftmaxOperatorDesc,
        hardmax as hardmax,
        log_softmax as log_softmax,
        softmax as softmax,
    )
    from dmljax._src.ops.space_to_depth import (
        SpaceToDepth1OperatorDesc as SpaceToDepth1OperatorDesc,
        SpaceToDepthOperatorDesc as SpaceToDepthOperatorDesc,
        space_to_depth as space_to_depth,
    )
    from dmljax._src.ops.split import SplitOperatorDesc as SplitOperatorDesc, split as split
    from dmljax._src.ops.tile import TileOperatorDesc as TileOperatorDesc, tile as tile
    from dmljax._src.ops.top_k import (
        TopK1OperatorDesc as TopK1OperatorDesc,
        TopKOperatorDesc as TopKOperatorDesc,
        top_k as top_k,
    )
    from dmljax._src.serialized.graph import load_serialized_graph as load_serialized_graph
    from dmljax._src.strides import (
        from_strided_buffer as from_strided_buffer,
        to_strided_buffer as to_strided_buffer,
    )
    from dmljax._src.tensor_desc import TensorDesc as TensorDesc, TensorFlags as TensorFlags


def _exports() -> dict[str, tuple[str, str]]:
    """Each exported name: its module and its name there, from the imports above (a star
    import: every name of that module's ``__all__``, read from its source)."""
    tree = ast.parse(pathlib.Path(__file__).read_text(encoding="utf-8"))
    guarded = next(node for node in tree.body if isinstance(node, ast.If))
    found: dict[str, tuple[str, str]] = {}
    for node in guarded.body:
        if not isinstance(node, ast.ImportFrom):
            continue
        module = node.module or ""
        for alias in node.names:
            names = _all_of(module) if alias.name == "*" else [alias.name]
            found |= {(alias.asname or name): (module, name) for name in names}
    return found


def _all_of(module: str) -> list[str]:
    """The literal ``__all__`` of a module of this package, from its source."""
    path = pathlib.Path(__file__).parent.joinpath(*module.split(".")[1:]).with_suffix(".py")
    tree = ast.parse(path.read_text(encoding="utf-8"))
    (value,) = (
        node.value
        for node in tree.body
        if isinstance(node, ast.Assign)
        and any(getattr(t, "id", "") == "__all__" for t in node.targets)
    )
    return list(ast.literal_eval(value))


_EXPORTS = _exports()


def __getattr__(name: str) -> Any:
    """Loads an exported name's module on first use; then the name is a plain attribute."""
    if name not in _EXPORTS:
        raise AttributeError(f"module 'dmljax' has no attribute {name!r}")
    module, attribute = _EXPORTS[name]
    value = importlib.import_module(f"{module}.{attribute}" if module == "dmljax" else module)
    if module != "dmljax":
        value = getattr(value, attribute)
    setattr(sys.modules[__name__], name, value)
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS})


try:
    __version__ = importlib.metadata.version("dmljax")
except importlib.metadata.PackageNotFoundError:  # running from a source tree
    __version__ = "0+unknown"

__all__ = [  # noqa: RUF022  # with the family's names below, sorted as Python sorts them
    "ActivationHardmax1OperatorDesc",
    "ActivationHardmaxOperatorDesc",
    "ActivationLogSoftmax1OperatorDesc",
    "ActivationLogSoftmaxOperatorDesc",
    "ActivationSoftmax1OperatorDesc",
    "ActivationSoftmaxOperatorDesc",
    "ArgmaxOperatorDesc",
    "ArgminOperatorDesc",
    "AxisDirection",
    "CastOperatorDesc",
    "CompiledGraph",
    "CompiledOperator",
    "ConstantDataGraphNodeDesc",
    "ConvolutionDirection",
    "ConvolutionMode",
    "ConvolutionOperatorDesc",
    "CumulativeProductOperatorDesc",
    "CumulativeSummationOperatorDesc",
    "DataType",
    "DepthSpaceOrder",
    "DepthToSpace1OperatorDesc",
    "DepthToSpaceOperatorDesc",
    "DiagonalMatrix1OperatorDesc",
    "DiagonalMatrixOperatorDesc",
    "DxDispatchModel",
    "ElementWiseDequantizeLinearOperatorDesc",
    "ElementWiseQuantizeLinearOperatorDesc",
    "ElementWiseQuantizedLinearAddOperatorDesc",
    "FeatureLevel",
    "FillValueConstantOperatorDesc",
    "FillValueSequenceOperatorDesc",
    "GatherElementsOperatorDesc",
    "GatherNd1OperatorDesc",
    "GatherNdOperatorDesc",
    "GatherOperatorDesc",
    "GemmOperatorDesc",
    "GraphBuilder",
    "GraphDesc",
    "GraphTensor",
    "GruOperatorDesc",
    "InputGraphEdgeDesc",
    "IntermediateGraphEdgeDesc",
    "InterpolationMode",
    "JoinOperatorDesc",
    "LstmOperatorDesc",
    "MatrixTransform",
    "OPERATORS",
    "OneHotOperatorDesc",
    "Operator",
    "OperatorGraphNodeDesc",
    "OutputGraphEdgeDesc",
    "Padding1OperatorDesc",
    "PaddingMode",
    "PaddingOperatorDesc",
    "RecurrentNetworkDirection",
    "ReduceFunction",
    "ReduceOperatorDesc",
    "Resample1OperatorDesc",
    "Resample2OperatorDesc",
    "ResampleOperatorDesc",
    "ReverseSubsequencesOperatorDesc",
    "RnnOperatorDesc",
    "ScatterElementsOperatorDesc",
    "ScatterNdOperatorDesc",
    "ScatterOperatorDesc",
    "Slice1OperatorDesc",
    "SliceGradOperatorDesc",
    "SliceOperatorDesc",
    "Size2D",
    "SpaceToDepth1OperatorDesc",
    "SpaceToDepthOperatorDesc",
    "SplitOperatorDesc",
    "TensorDesc",
    "TensorFlags",
    "TileOperatorDesc",
    "TopK1OperatorDesc",
    "TopKOperatorDesc",
    "Upsample2dOperatorDesc",
    "argmax",
    "argmin",
    "cast",
    "compile_graph",
    "compile_operator",
    "convolution",
    "cumprod",
    "cumsum",
    "depth_to_space",
    "dequantize_linear",
    "diagonal_matrix",
    "errors",
    "fill_value_constant",
    "fill_value_sequence",
    "from_strided_buffer",
    "gather",
    "gather_elements",
    "gather_nd",
    "gemm",
    "gru",
    "hardmax",
    "join",
    "load_dxdispatch",
    "load_serialized_graph",
    "log_softmax",
    "lstm",
    "one_hot",
    "onnx_slice",
    "onnx_slice_window",
    "pad",
    "quantize_linear",
    "quantized_linear_add",
    "reduce",
    "resample",
    "reverse_subsequences",
    "rnn",
    "scatter",
    "scatter_elements",
    "scatter_nd",
    "slice1",
    "slice_grad",
    "softmax",
    "space_to_depth",
    "split",
    "tile",
    "top_k",
    "to_strided_buffer",
]
if TYPE_CHECKING:
    from dmljax._src.ops import element_wise_names as _element_wise_names

    __all__ += ["IsInfinityMode", "RoundingMode", "ScaleBias"]
    __all__ += _element_wise_names.__all__
else:  # the same names, without importing the family, in one sorted list
    __all__ = sorted(
        {
            *__all__,
            *("IsInfinityMode", "RoundingMode", "ScaleBias"),
            *_all_of("dmljax._src.ops.element_wise_names"),
        }
    )
