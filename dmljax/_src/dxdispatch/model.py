"""DxDispatch's JSON models run by dmljax: resources, DirectML operator dispatchables and
commands, as ``DxDispatch/`` in microsoft/DirectML reads and runs them.

A resource is a byte buffer; an operator reads and writes it through its tensor descs,
from the byte offset its binding gives. Commands run in order and their effects stay.
"""

from __future__ import annotations

import math
import os
import pathlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from dmljax._src.dxdispatch.dispatchables import BindPoint, Dispatchable, parse_dispatchables
from dmljax._src.dxdispatch.images import IMAGE_SUFFIXES, write_image
from dmljax._src.dxdispatch.json_model import OP, json_uint, model_error, parse_model
from dmljax._src.dxdispatch.resources import Resource, parse_resource
from dmljax._src.feature_levels import FeatureLevel
from dmljax._src.graph import element_bytes, read_bytes
from dmljax._src.tensor_desc import TensorDesc

__all__ = ["DxDispatchModel", "load_dxdispatch"]

# --- Running --------------------------------------------------------------------------------------


def _format(value: Any) -> str:
    """A value as DxDispatch prints it (C++ ``operator<<``: 6 significant digits)."""
    if isinstance(value, np.floating):
        return f"{float(value):g}"
    return str(value)


def _printed(name: str, resource: Resource, verbose: bool) -> str:
    """What DxDispatch's ``print`` writes: the initial values' count of elements from the
    buffer's start, in a line, or with ``verbose`` one per line with its index and bytes.
    (DxDispatch's C++ stream writes 8-bit values as characters; dmljax writes numbers.)"""
    values = resource.values()
    if not verbose:
        return f"Resource '{name}': {', '.join(_format(v) for v in values)}"
    index_width = len(str(len(values)))
    hex_width = 2 * values.dtype.itemsize
    lines = []
    for i, value in enumerate(values):
        bits = int.from_bytes(value.tobytes(), "little")  # the value in a zeroed scalar union
        lines.append(f"[{i:>{index_width}}] {_format(value)} (0x{bits:>{hex_width}X})")
    return "\n".join([f"Resource '{name}':", *lines])


Buffers = dict[str, jax.Array]
"""Each resource's bytes, a uint8 vector, by name."""


class DxDispatchModel:
    """A loaded model: its resources (byte buffers), compiled dispatchables and commands.

    :meth:`run` runs the commands in order and returns the lines ``print`` wrote;
    the resources keep what the commands wrote. :meth:`as_function` gives the dispatch
    commands as one pure, jittable function of the resources' bytes.

    Inputs marked ``OWNED_BY_DML`` are bound when the model loads, by the dispatchable's
    own ``bindings``, and keep the values they had then, as DirectML's initializer keeps
    them; a dispatch must not bind them. A dispatchable that no command dispatches (a
    graph's node) is not initialized.

    >>> import dmljax as dml
    >>> model = dml.load_dxdispatch('''{"resources": {"A": {"initialValuesDataType": "INT32",
    ...   "initialValues": {"valueCount": 3, "valueStart": 7, "valueDelta": -2}}},
    ...   "dispatchables": {}, "commands": [{"type": "print", "resource": "A"}]}''')
    >>> model.run(), model.resources["A"].values()
    (["Resource 'A': 7, 5, 3"], array([7, 5, 3], dtype=int32))
    """

    def __init__(self, model: Any, folder: pathlib.Path, options: Mapping[str, Any]) -> None:
        if not isinstance(model, Mapping):
            raise model_error("model", "a JSON object", type(model).__name__)
        for member, kind, what in (("resources", Mapping, "an object of named resources"),
                                   ("dispatchables", Mapping, "an object of named dispatchables"),
                                   ("commands", list, "an array of commands")):  # fmt: skip
            if member not in model:
                raise model_error(member, f"an object named '{member}'", "nothing")
            if not isinstance(model[member], kind):
                raise model_error(member, what, repr(model[member])[:80])
        self.resources = {
            name: parse_resource(spec, f"resources.{name}", folder)
            for name, spec in model["resources"].items()
        }
        self.dispatchables = parse_dispatchables(model["dispatchables"], options, folder)
        self.commands: list[Any] = list(model["commands"])
        for k, command in enumerate(self.commands):
            kind = command.get("type", "") if isinstance(command, Mapping) else None
            if str(kind).lower() not in ("dispatch", "print", "writefile"):
                raise model_error(f"commands[{k}].type", "dispatch, print or writeFile", kind)
        self._folder = folder
        buffers = self.buffers()
        # Only what a command dispatches is initialized: a dispatchable that is only a
        # graph's node is a desc, its owned inputs fed through the graph's inputs.
        dispatched = {c.get("dispatchable") for c in self.commands}
        self._initialized = {
            name: self._initialize(
                model["dispatchables"][name], dispatchable, buffers, f"dispatchables.{name}"
            )
            for name, dispatchable in self.dispatchables.items()
            if name in dispatched
        }

    def buffers(self) -> Buffers:
        """Each resource's bytes now, as a uint8 vector: what :meth:`as_function` takes."""
        return {
            name: jnp.asarray(np.frombuffer(bytes(r.data), np.uint8))
            for name, r in self.resources.items()
        }

    def run(self) -> list[str]:
        """Runs every command in order; returns what ``print`` commands printed."""
        log: list[str] = []
        buffers = self.buffers()  # on the device once; each dispatch updates what it writes
        for k, command in enumerate(self.commands):
            where = f"commands[{k}]"
            kind = str(command["type"]).lower()
            if kind == "dispatch":
                written = self._dispatch(command, where, buffers)
                buffers.update(written)
                for name, data in written.items():
                    self.resources[name].data[:] = np.asarray(data).tobytes()
            elif kind == "print":
                resource = self._typed(command, where, "DxDispatch prints typed buffers")
                log.append(_printed(command["resource"], resource, bool(command.get("verbose"))))
            else:
                self._write_file(command, where)
        return log

    def as_function(self) -> Callable[[Mapping[str, jax.Array]], Buffers]:
        """The dispatch commands, in order, as one pure function of the resources' bytes
        (``print`` and ``writeFile`` are the host's and left out): jit it, vmap it over
        a leading axis of the buffers, or export it. It takes and returns bytes (uint8),
        as DirectML's resources are, so :func:`jax.grad` has nothing to differentiate:
        for gradients, compile the operators or a :class:`dmljax.GraphDesc` of them.

        >>> import jax, dmljax as dml
        >>> model = dml.load_dxdispatch('''{"resources": {
        ...   "A": {"initialValuesDataType": "INT8", "initialValues": [1, 2]},
        ...   "Out": {"initialValuesDataType": "INT8", "initialValues": [0, 0, 0, 0]}},
        ...   "dispatchables": {"tile": {"type": "TILE", "desc": {
        ...     "InputTensor": {"DataType": "INT8", "Sizes": [2]},
        ...     "OutputTensor": {"DataType": "INT8", "Sizes": [4]},
        ...     "RepeatsCount": 1, "Repeats": [2]}}},
        ...   "commands": [{"type": "dispatch", "dispatchable": "tile",
        ...                 "bindings": {"InputTensor": "A", "OutputTensor": "Out"}}]}''')
        >>> jax.jit(model.as_function())(model.buffers())["Out"]
        Array([1, 2, 1, 2], dtype=uint8)
        """
        dispatches = [
            (f"commands[{k}]", command)
            for k, command in enumerate(self.commands)
            if str(command["type"]).lower() == "dispatch"
        ]
        sizes = {name: len(r.data) for name, r in self.resources.items()}

        def run(buffers: Mapping[str, jax.Array]) -> Buffers:
            if not isinstance(buffers, Mapping) or set(buffers) != set(sizes):
                given = sorted(buffers) if isinstance(buffers, Mapping) else type(buffers)
                raise model_error(
                    "buffers", f"the bytes of every resource ({', '.join(sizes)})", given
                )
            current = dict(buffers)
            for name, data in current.items():
                if jnp.shape(data)[-1:] != (sizes[name],) or jnp.result_type(data) != np.uint8:
                    given = f"{jnp.result_type(data)}{list(jnp.shape(data))}"
                    raise model_error(
                        f"buffers[{name!r}]", f"uint8[{sizes[name]}] (the resource's bytes)", given
                    )
            for where, command in dispatches:
                current.update(self._dispatch(command, where, current))
            return current

        return run

    def _resource(self, name: Any, where: str) -> Resource:
        if name not in self.resources:
            raise model_error(where, f"a resource name ({', '.join(self.resources)})", repr(name))
        return self.resources[name]

    def _typed(self, command: Mapping[str, Any], where: str, why: str) -> Resource:
        """The command's resource, which must have a data type (a mixed array has none)."""
        resource = self._resource(command.get("resource"), f"{where}.resource")
        if resource.data_type is None:
            raise model_error(
                f"{where}.resource",
                f"a resource with an initialValuesDataType ({why})",
                command["resource"],
            )
        return resource

    def _bound(self, binding: Any, where: str) -> tuple[str, int]:
        """A binding's resource name and byte offset."""
        if isinstance(binding, str):
            self._resource(binding, where)
            return binding, 0
        if not isinstance(binding, Mapping):
            raise model_error(where, "a resource name or a binding object", repr(binding))
        for key in ("format", "counter", "counterOffsetBytes"):
            if key in binding:
                raise model_error(f"{where}.{key}", "absent (HLSL bindings only)", binding[key])
        name = str(binding.get("name"))
        resource = self._resource(binding.get("name"), f"{where}.name")
        # Without a data type (a mixed array) the element size is 0, as in DxDispatch.
        default = 0 if resource.data_type is None else resource.data_type.dtype.itemsize
        size = json_uint(
            binding.get("elementSizeInBytes", default), f"{where}.elementSizeInBytes", 32
        )
        return name, json_uint(binding.get("elementOffset", 0), f"{where}.elementOffset") * size

    def _entries(
        self, point: BindPoint, bindings: Mapping[str, Any], where: str
    ) -> list[tuple[str, str, int]] | None:
        """Where each tensor of ``point`` is bound: (label, resource, byte offset); None
        for an optional point left unbound."""
        given = bindings.get(point.name)
        if given is None and point.optional:
            return None
        entries = given if isinstance(given, list) else [given]
        count = len(point.tensors)
        if given is None or len(entries) != count:
            raise model_error(
                f"{where}.{point.name}", f"{count} resources", 0 if given is None else len(entries)
            )
        return [
            (f"{where}.{point.name}[{i}]", *self._bound(e, f"{where}.{point.name}"))
            for i, e in enumerate(entries)
        ]

    def _check_names(
        self, bindings: Any, points: Sequence[BindPoint], where: str, what: str
    ) -> Mapping[str, Any]:
        if not isinstance(bindings, Mapping):
            raise model_error(where, "an object of bind points", repr(bindings)[:80])
        names = [p.name for p in points]
        for name in bindings:
            if name not in names:
                raise model_error(f"{where}.{name}", f"{what} ({', '.join(names) or 'none'})", name)
        return bindings

    def _initialize(
        self, spec: Mapping[str, Any], dispatchable: Dispatchable, buffers: Buffers, where: str
    ) -> dict[str, list[jax.Array]]:
        """The OWNED_BY_DML inputs' values, read once from the dispatchable's bindings."""
        owned = [p for p in dispatchable.inputs if p.owned]
        where = f"{where}.bindings"
        bindings = self._check_names(
            spec.get("bindings", {}),
            owned,
            where,
            "an OWNED_BY_DML input, the only ones bound when DirectML initializes",
        )
        values = {}
        for point in owned:
            entries = self._entries(point, bindings, where)
            assert entries is not None  # an owned point has tensors
            values[point.name] = [
                _read(buffers[name], offset, tensor, label)
                for (label, name, offset), tensor in zip(entries, point.tensors, strict=True)
                if tensor is not None
            ]
        return values

    def _dispatch(self, command: Mapping[str, Any], where: str, buffers: Buffers) -> Buffers:
        """What a dispatch writes: the new bytes of the resources it writes."""
        name = command.get("dispatchable")
        if name not in self.dispatchables:
            raise model_error(
                f"{where}.dispatchable",
                f"a dispatchable name ({', '.join(self.dispatchables)})",
                repr(name),
            )
        dispatchable = self.dispatchables[name]
        where = f"{where}.bindings"
        points = (*dispatchable.inputs, *dispatchable.outputs)
        bindings = self._check_names(
            command.get("bindings", {}), points, where, f"a bind point of '{name}'"
        )
        arrays: list[Any] = []
        for point in dispatchable.inputs:
            if point.owned:
                if point.name in bindings:
                    raise model_error(
                        f"{where}.{point.name}",
                        "no binding: the input is "
                        "OWNED_BY_DML, bound by the dispatchable's bindings when it "
                        "was initialized",
                        bindings[point.name],
                    )
                arrays += self._initialized[name][point.name]
                continue
            entries = self._entries(point, bindings, where)
            if entries is None:
                arrays += [None] * len(point.tensors)
                continue
            for (label, resource, offset), tensor in zip(entries, point.tensors, strict=True):
                arrays.append(
                    None if tensor is None else _read(buffers[resource], offset, tensor, label)
                )
        results = iter(dispatchable.function(*arrays))
        written: Buffers = {}
        ranges: dict[str, list[tuple[int, int, str]]] = {}
        for point in dispatchable.outputs:
            entries = self._entries(point, bindings, where)
            assert entries is not None  # an output point has tensors
            for (label, resource, offset), tensor in zip(entries, point.tensors, strict=True):
                value = next(results)
                assert tensor is not None
                end = offset + tensor.bound_element_count * tensor.dtype.itemsize
                for start, stop, other in ranges.setdefault(resource, []):
                    if offset < stop and start < end:
                        raise model_error(
                            label,
                            f"bytes no other output writes ({other} writes "
                            f"bytes {start} to {stop} of '{resource}'; DirectML: "
                            "outputs must not overlap)",
                            f"bytes {offset} to {end}",
                        )
                ranges[resource].append((offset, end, label))
                data = written.get(resource, buffers[resource])
                written[resource] = _write(data, offset, tensor, value, label)
        return written

    def _write_file(self, command: Mapping[str, Any], where: str) -> None:
        resource = self._resource(command.get("resource"), f"{where}.resource")
        path = command.get("targetPath")
        if not isinstance(path, str) or not path or "\0" in path:
            raise model_error(f"{where}.targetPath", "a file path (a string without NUL)", path)
        target = pathlib.Path(path)
        if not target.is_absolute():
            target = self._folder / target
        # The whole buffer, as DxDispatch writes it: .npy shaped by "dimensions" (else
        # 1-D), an image of "dimensions" [N, C, H, W], any other file its raw bytes.
        suffix = target.suffix.lower()
        if suffix in IMAGE_SUFFIXES:
            resource = self._typed(command, where, "an image is written from values")
            dimensions = command.get("dimensions", [])
            if not isinstance(dimensions, list):
                raise model_error(f"{where}.dimensions", "an array of sizes", repr(dimensions)[:80])
            values, data_type = resource.values(), resource.data_type
            _writing(target, f"{where}.targetPath", lambda: write_image(
                target, values, data_type, dimensions, where))  # fmt: skip
            return
        if suffix != ".npy":
            _writing(target, f"{where}.targetPath", lambda: target.write_bytes(resource.data))
            return
        resource = self._typed(command, where, "a .npy file is typed")
        assert resource.data_type is not None
        dtype = resource.data_type.dtype
        values = np.frombuffer(bytes(resource.data), dtype, len(resource.data) // dtype.itemsize)
        dimensions = command.get("dimensions", [values.size])
        if not isinstance(dimensions, list):
            raise model_error(f"{where}.dimensions", "an array of sizes", repr(dimensions)[:80])
        for i, size in enumerate(dimensions):
            json_uint(size, f"{where}.dimensions[{i}]", 32)
        count = math.prod(dimensions)
        if count > values.size:
            raise model_error(
                f"{where}.dimensions",
                f"at most {values.size} elements (the resource's)",
                dimensions,
            )
        try:
            shaped = values[:count].reshape(dimensions)
        except ValueError as error:  # an empty shape whose extent NumPy cannot count
            raise model_error(f"{where}.dimensions", "a shape NumPy can hold", str(error)) from None
        _writing(target, f"{where}.targetPath", lambda: np.save(target, shaped))


def _writing(target: pathlib.Path, where: str, write: Callable[[], Any]) -> None:
    """``write()`` into ``target``, its folders made first; a path the system refuses (a
    folder, a file where a folder must go, no permission) is an error naming ``where``."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        write()
    except OSError as error:
        raise model_error(
            where, "a file dmljax can write", f"{target} ({error.strerror or error})"
        ) from None


def _read(data: jax.Array, offset: int, tensor: TensorDesc, where: str) -> jax.Array:
    """The tensor a binding gives an operator: ``tensor``'s bytes from ``offset``."""
    end = offset + tensor.bound_element_count * tensor.dtype.itemsize
    size = data.shape[-1]
    if end > size:
        raise model_error(
            where, f"a resource of at least {end} bytes from its offset {offset}", f"{size} bytes"
        )
    return read_bytes(data[offset:end], tensor)


def _write(data: jax.Array, offset: int, tensor: TensorDesc, value: Any, where: str) -> jax.Array:
    """``data`` with an operator's output written from ``offset``, as ``tensor`` binds it."""
    raw = element_bytes(jnp.asarray(value, tensor.dtype))
    end = offset + raw.shape[0]
    if end > data.shape[-1]:
        raise model_error(where, f"a resource of at least {end} bytes", f"{data.shape[-1]} bytes")
    return data.at[offset:end].set(raw)


def load_dxdispatch(
    source: str | os.PathLike[str],
    *,
    feature_level: FeatureLevel | int = FeatureLevel.LATEST,
    deterministic: bool = False,
) -> DxDispatchModel:
    """Loads a DxDispatch JSON model (a path, or the JSON text itself) and compiles its
    DirectML operator dispatchables at ``feature_level``, with ``deterministic`` as
    :func:`dmljax.compile_operator` takes it (a defined winner among duplicate scatter
    indices, which DirectML leaves undefined).

    Comments and trailing commas are accepted, as DxDispatch accepts them. A relative
    ``targetPath`` resolves against the model's folder, a ``sourcePath`` there first and
    then in the working folder, as DxDispatch resolves them (a model given as text has
    the working folder as its folder).

    >>> import dmljax as dml
    >>> model = dml.load_dxdispatch('''{
    ...   "resources": {
    ...     "A": {"initialValuesDataType": "FLOAT32", "initialValues": [1, 2, 3]},
    ...     "Out": {"initialValuesDataType": "FLOAT32",
    ...             "initialValues": {"valueCount": 6, "value": 0}},  // trailing comma next
    ...   },
    ...   "dispatchables": {"tile": {"type": "TILE", "desc": {
    ...     "InputTensor": {"DataType": "FLOAT32", "Sizes": [3]},
    ...     "OutputTensor": {"DataType": "FLOAT32", "Sizes": [6]},
    ...     "RepeatsCount": 1, "Repeats": [2]}}},
    ...   "commands": [
    ...     {"type": "dispatch", "dispatchable": "tile",
    ...      "bindings": {"InputTensor": "A", "OutputTensor": "Out"}},
    ...     {"type": "print", "resource": "Out"}]
    ... }''')
    >>> model.run()
    ["Resource 'Out': 1, 2, 3, 1, 2, 3"]
    """
    level = FeatureLevel.coerce(feature_level, op=OP)
    if not isinstance(deterministic, bool):
        raise model_error("deterministic", "a bool", repr(deterministic))
    options = {"feature_level": level, "deterministic": deterministic}
    text = os.fspath(source)
    if text.lstrip().startswith("{"):
        return DxDispatchModel(parse_model(text, "model"), pathlib.Path.cwd(), options)
    path = pathlib.Path(text)
    try:
        content = path.read_text(encoding="utf-8")
    except OSError as error:
        raise model_error(
            "source", "a readable JSON model file", f"{text} ({error.strerror})"
        ) from None
    except UnicodeDecodeError as error:  # JSON is UTF-8 (RFC 8259), as DxDispatch reads it
        raise model_error(
            "source", "a JSON model file in UTF-8", f"{text} (byte {error.start}: {error.reason})"
        ) from None
    return DxDispatchModel(parse_model(content, str(path)), path.parent, options)
