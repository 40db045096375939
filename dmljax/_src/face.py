"""The functional faces and the one call path both faces share.

A functional face is a documented function that hands its arguments to a
:class:`FunctionalFace`, which coerces them by their specs (:class:`Data`,
:class:`Indices`, :class:`Axis`, :class:`IntTuple`, ...), checks them and runs
the lowering through :class:`Dispatch`, jitted: the checks run while
:func:`jax.jit` traces, so a repeated signature runs none of them. Under a
caller's ``jit``, ``vmap`` or ``grad`` the operator is one jitted program too.
"""

from __future__ import annotations

import abc
import dataclasses
import functools
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, TypeGuard

import jax
import jax.numpy as jnp
import numpy as np
from jax.core import Tracer

from dmljax._src.arguments import (
    NUMPY_DTYPES_JAX_HOLDS,
    as_array,
    exact_float,
    one_spelling,
    require_length,
    static_bool,
    static_int,
    static_int_tuple,
    static_number,
)
from dmljax._src.dtypes import x64_enabled
from dmljax._src.indices import (
    NUMPY_NARROW_INDICES,
    NUMPY_WIDE_INDICES,
    as_index_array,
    narrowed_numpy_indices,
)
from dmljax._src.node_call import NodeCall
from dmljax.errors import ArgumentTypeError, InvalidArgumentError

__all__ = [
    "Arrays",
    "Axis",
    "Bool",
    "Choice",
    "Coerced",
    "DType",
    "Data",
    "Dispatch",
    "FunctionalFace",
    "Indices",
    "Int",
    "IntTuple",
    "NotPlain",
    "Number",
    "NumberTuple",
    "Static",
    "Symbolic",
    "is_concrete_array",
    "many_arrays",
    "plain_arguments",
]

# --- Dispatch: the one call path ----------------------------------------------------------------

_ONLY_INT = frozenset({int})
_INT_OR_FLOAT = frozenset({int, float})
# Types seen to be concrete JAX arrays: a set lookup is cheaper than isinstance.
_CONCRETE_ARRAY_TYPES: set[type] = set()
# The same and None's: the types a face of many arrays takes in one test (many_arrays).
_ARRAY_OR_NONE_TYPES: set[type] = {type(None)}


class NotPlain(Exception):
    """Raised by an argument spec's ``fast`` for a value the fast path does not take."""


Fast = Callable[[Any, tuple[Any, ...]], Any]


def plain_arguments(
    tests: tuple[Fast, ...], start: int = 0
) -> Callable[[tuple[Any, ...]], tuple[Any, ...]]:
    """One function of a call's arguments that runs ``tests`` (each spec's ``fast``) on
    them in order, from argument ``start`` on, and returns what they return, raising
    :class:`NotPlain` for the first argument that is not plain.

    Written out six arguments at a time: a loop (``zip``, a generator, ``map``) costs an
    eager call more than the tests themselves (nine arguments: 1.1 us, written out 0.3).

    >>> def double(x, args):
    ...     return 2 * x
    >>> plain_arguments((double, double))((1, 2))
    (2, 4)
    >>> plain_arguments((double,) * 8)(tuple(range(8)))
    (0, 2, 4, 6, 8, 10, 12, 14)
    """
    if len(tests) > 6:  # QUANTIZED_LINEAR_ADD's nine
        head, tail = plain_arguments(tests[:6], start), plain_arguments(tests[6:], start + 6)
        return lambda args: head(args) + tail(args)
    a, b, c, d, e, f = range(start, start + 6)
    if len(tests) == 1:
        (t0,) = tests
        return lambda args: (t0(args[a], args),)
    if len(tests) == 2:
        t0, t1 = tests
        return lambda args: (t0(args[a], args), t1(args[b], args))
    if len(tests) == 3:
        t0, t1, t2 = tests
        return lambda args: (t0(args[a], args), t1(args[b], args), t2(args[c], args))
    if len(tests) == 4:
        t0, t1, t2, t3 = tests
        return lambda args: (
            t0(args[a], args), t1(args[b], args), t2(args[c], args), t3(args[d], args)
        )  # fmt: skip
    if len(tests) == 5:
        t0, t1, t2, t3, t4 = tests
        return lambda args: (
            t0(args[a], args), t1(args[b], args), t2(args[c], args), t3(args[d], args),
            t4(args[e], args),
        )  # fmt: skip
    if len(tests) == 6:
        t0, t1, t2, t3, t4, t5 = tests
        return lambda args: (
            t0(args[a], args), t1(args[b], args), t2(args[c], args), t3(args[d], args),
            t4(args[e], args), t5(args[f], args),
        )  # fmt: skip
    return lambda args: ()


def many_arrays(
    count: int, tests: tuple[Fast, ...]
) -> Callable[[tuple[Any, ...]], tuple[Any, ...]]:
    """:func:`plain_arguments` for a face whose first ``count`` arguments are all
    :class:`Data`: their types in one test in C (JAX arrays, or None), then ``tests``'
    for the statics after them; anything else through ``tests`` one by one.
    QUANTIZED_LINEAR_ADD's nine arguments (eight arrays) take 0.5 us so, 0.8 one by
    one. A None where an array is required passes here and is refused, naming its
    field, when jit traces the call (the face's ``coerce``), as the slow path refuses
    it.

    >>> import jax.numpy as jnp
    >>> def same(x, args):
    ...     return x
    >>> one = jnp.ones(2)
    >>> [type(v).__name__ for v in many_arrays(2, (same, same, same))((one, None, 3))]
    ['ArrayImpl', 'NoneType', 'int']
    """
    each, statics = plain_arguments(tests), plain_arguments(tests[count:], count)
    allowed = _ARRAY_OR_NONE_TYPES

    def plain(args: tuple[Any, ...]) -> tuple[Any, ...]:
        arrays = args[:count]
        if allowed.issuperset(map(type, arrays)):
            return arrays + statics(args)
        return each(args)

    return plain


def is_concrete_array(x: Any) -> TypeGuard[jax.Array]:
    """Whether ``x`` is a JAX array holding values (not a tracer, not a NumPy array)."""
    kind = type(x)
    if kind in _CONCRETE_ARRAY_TYPES:
        return True
    if isinstance(x, jax.Array) and not isinstance(x, Tracer):
        _CONCRETE_ARRAY_TYPES.add(kind)
        _ARRAY_OR_NONE_TYPES.add(kind)
        return True
    return False


def _flat(arrays: Sequence[Any]) -> Iterator[Any]:
    """The arrays, those in a tuple or list argument (JOIN's inputs) one by one."""
    for x in arrays:
        if isinstance(x, tuple | list):
            yield from x
        else:
            yield x


class Dispatch:
    """``checked(*arrays, *statics, **named_arrays)``, jitted.

    The one call path of both faces: :class:`FunctionalFace` and
    :class:`~dmljax.CompiledOperator` each hold one.

    Args:
        checked: checks its arguments (raising dmljax's errors while tracing)
            and lowers the operator; its last ``static_count`` positional
            parameters are static (hashable Python values).
        name: the program's name, the operator's (``"gather"``): jit names its program after
            the function, which jaxprs (``jit[name=gather]``) and HLO dumps then show.
        static_count: how many trailing positional arguments are static.
        array_count: how many arrays come before them, for a ``checked`` that
            takes ``*args`` (jit cannot place negative static argnums there).
        donate_argnums: arrays whose buffers an eager call donates.
        prepare_eagerly: run on arguments that are neither all JAX arrays nor
            traced (NumPy arrays) before jit sees them, returning the ``(args,
            named)`` to call it with: jit would first narrow 64-bit NumPy arrays
            while x64 is off, and refuse NumPy's other byte order.

    >>> import jax.numpy as jnp
    >>> double = Dispatch(lambda x, n: x * n, name="double", static_count=1)
    >>> double(jnp.arange(3), 2)
    Array([0, 2, 4], dtype=int32)
    """

    def __init__(
        self,
        checked: Callable[..., Any],
        *,
        name: str,
        static_count: int,
        donate_argnums: tuple[int, ...] = (),
        prepare_eagerly: Callable[..., tuple[tuple[Any, ...], dict[str, Any]]] | None = None,
        array_count: int | None = None,
    ) -> None:
        checked.__name__ = checked.__qualname__ = name
        self._static_count = static_count
        self._prepare_eagerly = prepare_eagerly
        static_argnums = (
            tuple(range(-static_count, 0))
            if array_count is None
            else tuple(range(array_count, array_count + static_count))
        )
        self.jitted = jax.jit(checked, static_argnums=static_argnums, donate_argnums=donate_argnums)
        # Traced arguments (a caller's jit, vmap, grad or export) go through a jit of their own
        # too, as jax.numpy's functions do: under an eager vmap or grad the operator is then one
        # program per signature, not each of its primitives a program run op by op. It never
        # donates: the buffer under a tracer is the caller's (an eager vmap passes it as is).
        self.traced = (
            jax.jit(checked, static_argnums=static_argnums) if donate_argnums else self.jitted
        )

    def __call__(self, *args: Any, **named: Any) -> Any:
        arrays = args[: len(args) - self._static_count] if self._static_count else args
        if named:
            arrays = (*arrays, *named.values())
        concrete = _CONCRETE_ARRAY_TYPES
        for x in arrays:  # a loop, not all(...): this is an eager call's hot path
            if type(x) not in concrete and not is_concrete_array(x):
                break
        else:
            return self.jitted(*args, **named)
        if any(isinstance(x, Tracer) for x in _flat(arrays)):
            return self.traced(*args, **named)
        if self._prepare_eagerly is not None:
            args, named = self._prepare_eagerly(*args, **named)
        return self.jitted(*args, **named)


# --- The functional face ------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Data:
    """An array argument of a functional face: any array or scalar JAX can hold, or None
    too if ``optional`` (a DirectML tensor that may be left out, such as a zero point)."""

    name: str
    optional: bool = False

    def fast(self, x: Any, args: tuple[Any, ...]) -> Any:
        """``x`` where jit takes it as it is: a concrete JAX array, or a NumPy one of a
        dtype JAX holds (the slow path would pass it on unchanged)."""
        kind = type(x)
        if kind in _CONCRETE_ARRAY_TYPES:
            return x
        if x is None:
            if self.optional:
                return x
            raise NotPlain
        if kind is np.ndarray and x.dtype in NUMPY_DTYPES_JAX_HOLDS:
            return x
        raise NotPlain

    def coerce(self, x: Any, *, op: str) -> Any:
        if x is None and self.optional:
            return None
        return as_array(x, op=op, field=self.name)


@dataclasses.dataclass(frozen=True)
class Arrays(Data):
    """A sequence of array arguments (JOIN's inputs), passed on as a tuple."""

    def fast(self, x: Any, args: tuple[Any, ...]) -> Any:
        if type(x) is tuple and x and _CONCRETE_ARRAY_TYPES.issuperset(map(type, x)):
            return x
        raise NotPlain

    def coerce(self, x: Any, *, op: str) -> Any:
        if not isinstance(x, list | tuple):
            raise ArgumentTypeError(
                op,
                self.name,
                "a list or tuple of arrays",
                type(x).__name__,
                hint="Pass the arrays as a sequence, e.g. (a, b).",
            )
        return tuple(as_array(a, op=op, field=f"{self.name}[{i}]") for i, a in enumerate(x))


@dataclasses.dataclass(frozen=True)
class Indices(Data):
    """An array argument holding integer indices of any width."""

    def fast(self, x: Any, args: tuple[Any, ...]) -> Any:
        # 64-bit indices while x64 is off take the slow path, which saturates them and
        # warns, unless they are NumPy ones whose values fit 32 bits: narrowed here, in
        # place of the exception and a second pass through the call.
        kind = type(x)
        if kind is type(None) and self.optional:
            return None
        if kind in _CONCRETE_ARRAY_TYPES:
            if x.dtype.itemsize < 8 or x64_enabled():
                return x
        elif kind is np.ndarray:
            if x.dtype in NUMPY_NARROW_INDICES:
                return x
            if x.dtype in NUMPY_WIDE_INDICES:
                narrowed = narrowed_numpy_indices(x)
                if narrowed is not x or x64_enabled():
                    return narrowed
        raise NotPlain

    def coerce(self, x: Any, *, op: str) -> Any:
        if x is None and self.optional:
            return None
        return as_index_array(x, op=op, field=self.name)


@dataclasses.dataclass(frozen=True)
class Axis:
    """A static axis of array argument ``of`` (of its first array, for an :class:`Arrays`);
    both spellings share one program."""

    name: str = "axis"
    of: int = 0
    of_first: bool = False

    def fast(self, value: Any, args: tuple[Any, ...]) -> Any:
        """An int ``value`` in the spelling every call shares (non-negative where it is
        valid)."""
        if type(value) is not int:
            raise NotPlain
        if value >= 0:  # already its one spelling: no need to read the array's ndim
            return value
        array = args[self.of][0] if self.of_first else args[self.of]
        return one_spelling(value, array.ndim)

    def coerce(self, value: Any, arrays: Sequence[Any], *, op: str) -> Any:
        axis = static_int(value, op=op, field=self.name)
        array = arrays[self.of]
        if self.of_first:
            if not array:
                return axis  # no arrays at all: the face's own check says so
            array = array[0]
        return one_spelling(axis, len(array.shape))


@dataclasses.dataclass(frozen=True)
class Int:
    """A static int that is no axis (a count, such as ``batch_dims``)."""

    name: str

    def fast(self, value: Any, args: tuple[Any, ...]) -> Any:
        if type(value) is int:
            return value
        raise NotPlain

    def coerce(self, value: Any, arrays: Sequence[Any], *, op: str) -> Any:
        del arrays
        return static_int(value, op=op, field=self.name)


@dataclasses.dataclass(frozen=True)
class IntTuple:
    """A static tuple of ints (repeats, offsets, ...); None too if ``optional``, a single
    int too if ``or_int`` (SPLIT's number of equal parts)."""

    name: str
    optional: bool = False
    or_int: bool = False
    per_dimension_of: tuple[int, str] | None = None
    """``(index, name)`` of the array with one entry per dimension: its length is checked
    before any entry is converted (a long sequence costs nothing then)."""
    _last_plain: list[Any] = dataclasses.field(
        default_factory=lambda: [None], init=False, repr=False, compare=False
    )
    """The last tuple found plain: a loop passes the same tuple object call after call
    (a literal, a shape), and a tuple of ints stays one, so it needs no new test."""

    def fast(self, value: Any, args: tuple[Any, ...]) -> Any:
        kind = type(value)
        if kind is tuple:
            if value is self._last_plain[0]:
                return value
            if _ONLY_INT.issuperset(map(type, value)):  # a set from the types: the slow part
                self._last_plain[0] = value
                return value
        elif (self.optional and value is None) or (self.or_int and kind is int):
            return value
        raise NotPlain

    def coerce(self, value: Any, arrays: Sequence[Any], *, op: str) -> Any:
        if type(value) is list and _ONLY_INT.issuperset(map(type, value)):
            # ``[2, 2]``, the common other spelling: 3.5 us through the checks below.
            of = self.per_dimension_of
            if of is None or len(value) == np.ndim(arrays[of[0]]):
                return tuple(value)
        if self.optional and value is None:
            return None
        sized = isinstance(value, Sequence) or (isinstance(value, np.ndarray) and value.ndim == 1)
        if self.per_dimension_of is not None and sized and not isinstance(value, str | bytes):
            index, array = self.per_dimension_of
            shape = tuple(np.shape(arrays[index]))
            why = f"one entry per dimension of {array}, shape {shape}"
            require_length(value, len(shape), op=op, field=self.name, why=why)
        if self.or_int and not isinstance(value, Sequence | np.ndarray | jax.Array):
            if not isinstance(value, int | float | np.number) and not hasattr(value, "__index__"):
                raise ArgumentTypeError(
                    op, self.name, "an integer or a tuple of integers", repr(value)
                )
            return static_int(value, op=op, field=self.name)
        if self.or_int and isinstance(value, np.ndarray | jax.Array) and value.ndim == 0:
            return static_int(value, op=op, field=self.name)
        return static_int_tuple(value, op=op, field=self.name)


@dataclasses.dataclass(frozen=True)
class Bool:
    """A static bool."""

    name: str

    def fast(self, value: Any, args: tuple[Any, ...]) -> Any:
        if type(value) is bool:
            return value
        raise NotPlain

    def coerce(self, value: Any, arrays: Sequence[Any], *, op: str) -> Any:
        del arrays
        return static_bool(value, op=op, field=self.name)


@dataclasses.dataclass(frozen=True)
class Choice:
    """A static string, one of ``options``; ``aliases`` maps other spellings (an enum
    member, numpy's name) to one of them."""

    name: str
    options: tuple[str, ...]
    aliases: tuple[tuple[Any, str], ...] = ()

    def fast(self, value: Any, args: tuple[Any, ...]) -> Any:
        if type(value) is str and value in self.options:
            return value
        raise NotPlain

    def coerce(self, value: Any, arrays: Sequence[Any], *, op: str) -> Any:
        del arrays
        for alias, option in self.aliases:
            if type(value) is type(alias) and value == alias:
                value = option
        # The str test first: `in` would compare an array element by element.
        if not isinstance(value, str) or value not in self.options:
            raise InvalidArgumentError(
                op, self.name, f"one of {', '.join(map(repr, self.options))}", repr(value)
            )
        return value


@dataclasses.dataclass(frozen=True)
class Number:
    """A static real number (a constant such as a pad value): an int, or a float as
    :func:`~dmljax._src.arguments.exact_float` holds it, so that ``-0.0`` gets its own
    program."""

    name: str

    def fast(self, value: Any, args: tuple[Any, ...]) -> Any:
        kind = type(value)
        if kind is int:
            return value
        if kind is float:  # what coerce makes of it, without its checks
            return exact_float(value)
        raise NotPlain

    def coerce(self, value: Any, arrays: Sequence[Any], *, op: str) -> Any:
        del arrays
        return static_number(value, op=op, field=self.name)


@dataclasses.dataclass(frozen=True)
class NumberTuple:
    """A static tuple of real numbers (RESAMPLE's scales and pixel offsets), each as
    :class:`Number` holds it; None too if ``optional``, a single number too if
    ``or_number`` (the same for every dimension)."""

    name: str
    optional: bool = False
    or_number: bool = False

    def fast(self, value: Any, args: tuple[Any, ...]) -> Any:
        kind = type(value)
        if kind is tuple and _INT_OR_FLOAT.issuperset(map(type, value)):
            return tuple(exact_float(v) if isinstance(v, float) else v for v in value)
        if (self.optional and value is None) or (self.or_number and kind in _INT_OR_FLOAT):
            return exact_float(value) if isinstance(value, float) else value
        raise NotPlain

    def coerce(self, value: Any, arrays: Sequence[Any], *, op: str) -> Any:
        del arrays
        if self.optional and value is None:
            return None
        if self.or_number and (np.ndim(value) == 0 and not isinstance(value, str | bytes)):
            return static_number(value, op=op, field=self.name)
        if isinstance(value, str | bytes) or not isinstance(value, Sequence | np.ndarray):
            expected = "a number or a tuple of numbers" if self.or_number else "a tuple of numbers"
            raise ArgumentTypeError(op, self.name, expected, repr(value)[:80])
        return tuple(
            static_number(v, op=op, field=f"{self.name}[{i}]") for i, v in enumerate(value)
        )


@dataclasses.dataclass(frozen=True)
class Coerced:
    """A static value of a kind a desc field also takes, coerced as that field is (RNN's
    activation descs); None too if ``optional``. Its values must be hashable."""

    name: str
    coerce_value: Callable[..., Any]
    plain: Callable[[Any], bool]
    """Whether a value is already as ``coerce_value`` returns it (the fast path's test)."""
    optional: bool = False

    def fast(self, value: Any, args: tuple[Any, ...]) -> Any:
        if (value is None and self.optional) or self.plain(value):
            return value
        raise NotPlain

    def coerce(self, value: Any, arrays: Sequence[Any], *, op: str) -> Any:
        del arrays
        if value is None and self.optional:
            return None
        return self.coerce_value(value, op=op, field=self.name)


@dataclasses.dataclass(frozen=True)
class DType:
    """A static dtype, as a NumPy dtype: a dtype, a scalar type (``jnp.float16``,
    ``np.int8``) or a name; Python's ``bool``, ``int`` and ``float`` mean JAX's
    default types for them, as in :func:`jax.numpy.zeros`; None too if ``optional``."""

    name: str
    optional: bool = False

    def fast(self, value: Any, args: tuple[Any, ...]) -> Any:
        """A dtype as it is, a scalar type (``jnp.float16``) as its dtype: both share one
        program."""
        dtype = _DTYPE_BY_ID.get(id(value))
        if dtype is not None:
            return dtype
        if value is None and self.optional:
            return value
        if isinstance(value, np.dtype):  # a third of a microsecond: np.dtype's metaclass
            return value
        raise NotPlain

    def coerce(self, value: Any, arrays: Sequence[Any], *, op: str) -> Any:
        del arrays
        if value is None and self.optional:
            return None
        if value in _PYTHON_SCALAR_TYPES:
            return np.dtype(jax.dtypes.canonicalize_dtype(value))
        try:
            return np.dtype(value)
        except TypeError:
            raise ArgumentTypeError(op, self.name, "a dtype", repr(value)) from None


_PYTHON_SCALAR_TYPES = (bool, int, float, complex)
# NumPy's and jax.numpy's scalar types and their dtypes, each with its dtype: the spellings
# a caller passes as a dtype (``jnp.float16``, ``x.dtype``), taken by a face's fast path
# without np.dtype's parsing or an isinstance test (np.dtype's metaclass makes that a third
# of a microsecond). Keyed by identity: jax.numpy's scalar types hash in Python, and these
# types and NumPy's dtype of each (one object per type, which every array of it returns)
# live as long as their modules, so no other object can take one's id.
_DTYPE_BY_ID: dict[int, np.dtype[Any]] = {
    id(spelling): np.dtype(scalar)
    for module in (np, jnp)
    for name in (
        "bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
        "float16", "bfloat16", "float32", "float64",
    )
    if (scalar := getattr(module, name, None)) is not None
    for spelling in (scalar, np.dtype(scalar))
}  # fmt: skip


Static = Axis | Int | IntTuple | Bool | Choice | Number | NumberTuple | Coerced | DType


def _is_key_array(x: Any) -> bool:
    return isinstance(x, jax.Array) and jnp.issubdtype(x.dtype, jax.dtypes.prng_key)


def _moves_keys(face: FunctionalFace, arrays: tuple[Any, ...], statics: tuple[Any, ...]) -> bool:
    """Whether ``face`` moves the key arrays among ``arrays`` with these statics."""
    if not callable(face.keys):
        return face.keys
    named = {
        spec.name: spec.coerce(value, arrays, op=face.op)
        for spec, value in zip(face._statics, statics, strict=True)
    }
    return face.keys(named)


def _with_keys(face: FunctionalFace, arrays: tuple[Any, ...], statics: tuple[Any, ...]) -> Any:
    """``face`` on key arrays: on each word of their data, the result wrapped as keys."""
    op = face.op
    data_specs = [spec for spec in face._arrays if not isinstance(spec, Indices)]
    if not _moves_keys(face, arrays, statics):
        return None
    impls = set()
    in_axes: list[Any] = []
    words: list[Any] = []
    for spec, value in zip(face._arrays, arrays, strict=True):
        if spec not in data_specs:
            in_axes.append(None)
            words.append(value)
            continue
        leaves, tree = jax.tree.flatten(value)
        for i, leaf in enumerate(leaves):
            if not _is_key_array(leaf):
                field = spec.name if isinstance(value, jax.Array) else f"{spec.name}[{i}]"
                raise ArgumentTypeError(
                    op, field, "a key array, as the other data arguments are",
                    f"an array of dtype {getattr(leaf, 'dtype', type(leaf).__name__)}",
                )  # fmt: skip
            impls.add(jax.random.key_impl(leaf))
        in_axes.append(jax.tree.unflatten(tree, [-1] * len(leaves)))
        words.append(jax.tree.unflatten(tree, [jax.random.key_data(k) for k in leaves]))
    if len(impls) > 1:
        names = ", ".join(sorted(map(str, impls)))
        raise ArgumentTypeError(op, data_specs[0].name, "keys of one implementation", names)
    (impl,) = impls

    def on_words(*words: Any) -> Any:
        return face.call(*words, *statics)

    moved = jax.vmap(on_words, in_axes=tuple(in_axes), out_axes=-1)(*words)
    return jax.tree.map(lambda w: jax.random.wrap_key_data(w, impl=impl), moved)


def _misplaced_arrays(op: str, names: Sequence[str], error: ValueError) -> Exception | None:
    """JAX's error for arrays on different devices, naming the face and its argument
    (JAX names an internal closure and ``args[1]``); None for any other error."""
    text = str(error)
    if "incompatible devices" not in text:
        return None
    found = [names[int(k)] for k in re.findall(r"args\[(\d+)\]", text) if int(k) < len(names)]
    first, other = (found[0], found[-1]) if len(found) >= 2 else (names[0], ", ".join(names))
    return InvalidArgumentError(
        op,
        other,
        f"on the devices of {first} (one call runs on one set of devices)",
        "an array on other devices",
        hint=f"Move it with jax.device_put({other}, {first}.sharding).",
    )


def _undecided(op: str, error: Exception) -> InvalidArgumentError:
    """A rule on a :func:`jax.export` symbol that its constraints do not decide."""
    comparison = str(error).splitlines()[0].rstrip(".")
    return InvalidArgumentError(
        op,
        "a symbolic dimension",
        "decidable by the rules of the operator",
        comparison,
        hint="Give the symbol the bound the operator needs, e.g. "
        'jax.export.symbolic_shape("b", constraints=("b >= 2",)).',
    )


class Symbolic(abc.ABC):
    """A tensor of a graph being built (:class:`dmljax.GraphBuilder`): a face called on
    one adds a node to its graph instead of running."""

    @abc.abstractmethod
    def add_node(
        self, face: FunctionalFace, arrays: tuple[Any, ...], statics: tuple[Any, ...]
    ) -> Any:
        """The face's call as a node of this tensor's graph; its symbolic results."""


class FunctionalFace:
    """The ceremony every functional face shares, written once.

    ``face.call(*arrays, *statics)``: with concrete JAX arrays and statics of
    their plain Python types (each spec's ``fast``) it calls the jitted program
    straight away (its checks ran while jit traced it). Otherwise it coerces
    every argument, naming the op and the argument in any error, and
    dispatches. ``checked`` receives coerced arrays (also while tracing) and
    Python statics; it checks the rules that need the arrays' shapes and
    dtypes, then calls the lowering.

    Args:
        function: the public function, e.g. :func:`dmljax.gather`, which
            returns ``face.call(...)``; errors name it (``"dmljax.gather"``).
        checked: ``(*arrays, *statics) -> result``.
        specs: one per parameter of ``checked``, in its order: a :class:`Data`
            or :class:`Indices` per array, then a static spec per static.
        keys: whether typed PRNG key arrays move through the data arguments, as
            jax.numpy moves them (data movement without arithmetic or fill
            values), given the coerced statics by name. The face then runs on
            each word of the keys' data (a vmap over its last axis) and wraps the
            result as keys of the same implementation.
        graph_node: the operator desc of the face's call as a node of a graph
            (:class:`~dmljax._src.node_call.NodeCall` to desc), for
            :class:`dmljax.GraphBuilder`; None where no DirectML desc takes the call.

    >>> import jax.numpy as jnp
    >>> def repeat(x, n):
    ...     return face.call(x, n)
    >>> face = FunctionalFace(repeat, lambda x, n: jnp.tile(x, n), Data("x"), IntTuple("repeats"))
    >>> repeat(jnp.arange(2), (2,))
    Array([0, 1, 0, 1], dtype=int32)
    """

    def __init__(
        self,
        function: Callable[..., Any],
        checked: Callable[..., Any],
        *specs: Data | Static,
        keys: bool | Callable[[Mapping[str, Any]], bool] = False,
        graph_node: Callable[[NodeCall], Any] | None = None,
    ) -> None:
        self.function = function
        self.keys = keys
        self.graph_node = graph_node
        self.op = op = f"dmljax.{function.__name__}"
        self._arrays = tuple(spec for spec in specs if isinstance(spec, Data))
        self._statics = tuple(spec for spec in specs if not isinstance(spec, Data))
        if specs != (*self._arrays, *self._statics):
            raise TypeError(f"{op}: the array specs must come before the static ones")
        count = len(self._arrays)

        def coerced(*args: Any) -> Any:
            # Again while tracing: the fast path hands arrays over unchecked (their
            # dtypes, say integer indices, are checked once per signature here).
            xs = tuple(spec.coerce(x, op=op) for spec, x in zip(self._arrays, args, strict=False))
            try:
                return checked(*xs, *args[count:])
            except jax.errors.InconclusiveDimensionOperation as error:
                raise _undecided(op, error) from None

        self.dispatch = Dispatch(
            coerced, name=function.__name__, static_count=len(self._statics), array_count=count
        )
        self._count = count
        self._jitted = self.dispatch.jitted
        tests = tuple(spec.fast for spec in specs)
        if count >= 4 and all(type(spec) is Data for spec in self._arrays):
            self._plain = many_arrays(count, tests)
        else:
            self._plain = plain_arguments(tests)
        self._plain_arrays = plain_arguments(tests[:count])
        self._misplaced = functools.partial(_misplaced_arrays, op, [s.name for s in self._arrays])

    def call(self, *args: Any) -> Any:
        """``checked(*arrays, *statics)``, jitted: what the public function returns.

        The eager fast path is a few type tests and the jitted call: with every
        argument of its plain type (each spec's ``fast``: concrete JAX arrays,
        statics of their Python types, axes and dtypes in their one spelling) the
        checks already ran while jit traced the program for this signature.
        Anything else takes :meth:`_not_plain`.
        """
        try:
            try:
                plain = self._plain(args)
            except NotPlain:
                return self._not_plain(args)
            return self._jitted(*plain)
        except ValueError as error:
            replacement = self._misplaced(error)
            if replacement is None:
                raise
            raise replacement from error

    @property
    def array_specs(self) -> tuple[Data, ...]:
        """The specs of the arrays, in the order of the face's parameters."""
        return self._arrays

    @property
    def static_specs(self) -> tuple[Static, ...]:
        """The specs of the statics, in the order of the face's parameters."""
        return self._statics

    def as_node(self, graph: Symbolic, *args: Any) -> Any:
        """The call ``call(*args)`` as a node of ``graph``'s graph, its statics coerced as
        the face coerces them: what a face called on a graph tensor does, and how a
        builder makes a node of a call without arrays
        (``diagonal_matrix(jax.ShapeDtypeStruct(...))``)."""
        count, op = self._count, self.op
        arrays, statics = args[:count], args[count:]
        coerced = tuple(
            spec.coerce(v, arrays, op=op) for spec, v in zip(self._statics, statics, strict=True)
        )
        return graph.add_node(self, arrays, coerced)

    def _not_plain(self, args: tuple[Any, ...]) -> Any:
        """A call with some argument not of its plain type. Plain arrays and another
        spelling of a static (``repeats=[2, 2]``, ``axis=np.int64(0)``): the statics
        coerced and the jitted program called, as the fast path calls it (``dml.tile(x,
        [2, 2])`` took 3.3 times as long as with a tuple through :meth:`_slow`, 1.7 so).
        Anything else: :meth:`_slow`."""
        count = self._count
        try:
            arrays = self._plain_arrays(args)
        except NotPlain:
            return self._slow(args[:count], args[count:])
        op = self.op
        statics = tuple(
            spec.coerce(v, arrays, op=op)
            for spec, v in zip(self._statics, args[count:], strict=True)
        )
        return self._jitted(*arrays, *statics)

    def _slow(self, arrays: tuple[Any, ...], statics: tuple[Any, ...]) -> Any:
        op, specs = self.op, self._statics
        symbolic = next((x for x in _flat(arrays) if isinstance(x, Symbolic)), None)
        if symbolic is not None:  # a graph being built: its node, not a run
            return self.as_node(symbolic, *arrays, *statics)
        if self.keys and any(map(_is_key_array, jax.tree.leaves(arrays))):
            moved = _with_keys(self, arrays, statics)
            if moved is not None:
                return moved
        arrays = tuple(spec.coerce(x, op=op) for spec, x in zip(self._arrays, arrays, strict=True))
        statics = tuple(
            spec.coerce(v, arrays, op=op) for spec, v in zip(specs, statics, strict=True)
        )
        return self.dispatch(*arrays, *statics)
