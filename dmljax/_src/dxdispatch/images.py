"""Images in DxDispatch models, as DxDispatch's ImageReaderWriter reads and writes them,
through Pillow (dmljax's ``image`` extra: ``pip install "dmljax[image]"``).

A resource whose ``sourcePath`` is a ``.jpg`` or ``.png`` holds the image scaled to its
``resampleSize`` ``[1, C, H, W]`` (C 3: RGB, else RGBA), channels first, each 8-bit
component ``c`` as ``c / 255`` in FLOAT32 or FLOAT16. DxDispatch scales with Windows
Imaging Component's high-quality cubic filter, dmljax with Pillow's bicubic one: an image
read at its own size is the same; a scaled one differs by what the two filters do. A
``writeFile`` into a ``.jpg`` or ``.png`` writes ``dimensions`` ``[N, C, H, W]`` (C 1:
grayscale, 3: RGB, 4: RGBA) of the resource, each value clamped to ``[0, 1]`` (NaN as 1),
times 255, truncated to a byte.

>>> import numpy as np
>>> pixels_of(np.array([0.5, -1.0, np.nan, 2.0], np.float32)).tolist()
[127, 0, 255, 255]
"""

from __future__ import annotations

import pathlib
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from dmljax._src.dtypes import DataType
from dmljax._src.dxdispatch.json_model import json_uint, model_error, require_fits

__all__ = ["IMAGE_SUFFIXES", "pixels_of", "read_image", "write_image"]

IMAGE_SUFFIXES = (".jpg", ".png")
"""The files DxDispatch reads and writes as images (any other is raw bytes or .npy)."""

_IMAGE_TYPES = (DataType.FLOAT32, DataType.FLOAT16)
_WRITTEN_MODES = {1: "L", 3: "RGB", 4: "RGBA"}


def _pillow(where: str) -> Any:
    try:
        from PIL import Image
    except ImportError:
        raise model_error(
            where, "Pillow, to read or write an image (dmljax's image extra)", "no module PIL",
            hint='Install it: pip install "dmljax[image]".',
        ) from None  # fmt: skip
    return Image


def read_image(
    path: pathlib.Path, data_type: DataType | None, resource: Mapping[str, Any], where: str
) -> bytes:
    """The image at ``path`` as the resource ``resource`` (its ``resampleSize`` and
    ``resampleMode``) holds it; ``where`` is the JSON path of its ``sourcePath``."""
    at = where.removesuffix(".initialValues.sourcePath")
    if data_type is None or data_type not in _IMAGE_TYPES:
        raise model_error(
            f"{at}.initialValuesDataType", "FLOAT32 or FLOAT16 (an image's values, 0 to 1)",
            "nothing" if data_type is None else data_type.name,
        )  # fmt: skip
    mode = resource.get("resampleMode", "scale")
    if mode != "scale":
        raise model_error(f"{at}.resampleMode", "'scale' (DxDispatch's one mode for images)", mode)
    size = resource.get("resampleSize")
    if not isinstance(size, list) or len(size) != 4:
        raise model_error(
            f"{at}.resampleSize", "[1, C, H, W]: the sizes DxDispatch scales an image to",
            repr(size)[:80],
        )  # fmt: skip
    n, channels, height, width = (
        json_uint(v, f"{at}.resampleSize[{i}]", 32) for i, v in enumerate(size)
    )
    if n != 1 or channels not in (3, 4) or not height or not width:
        raise model_error(
            f"{at}.resampleSize", "[1, C, H, W] with C 3 (RGB) or 4 (RGBA) and H, W at least 1",
            size,
        )  # fmt: skip
    nbytes = channels * height * width * data_type.dtype.itemsize
    require_fits(nbytes, f"{at}.resampleSize", f"{nbytes} bytes")
    image_module = _pillow(where)
    try:
        with image_module.open(path) as image:
            image = image.convert("RGB" if channels == 3 else "RGBA")
            if image.size != (width, height):
                image = image.resize((width, height), image_module.Resampling.BICUBIC)
            pixels = np.asarray(image, np.uint8)
    except (OSError, ValueError, image_module.DecompressionBombError) as error:
        raise model_error(
            where, "a readable .jpg or .png image", f"{path.name} ({error})"
        ) from None
    # DxDispatch: static_cast<float>(component) / 255.0f, stored in the type.
    values = (pixels.astype(np.float32) / np.float32(255)).astype(data_type.dtype)
    return np.ascontiguousarray(values.transpose(2, 0, 1)).tobytes()


def pixels_of(values: np.ndarray) -> np.ndarray:
    """Image bytes of float values as DxDispatch writes them: clamped to ``[0, 1]`` (NaN
    as 1, as ``std::max(0, std::min(1, v))`` gives it), times 255, truncated."""
    wide = values.astype(np.float32)
    clamped = np.where(np.isnan(wide), np.float32(1), np.clip(wide, 0, 1))
    return (clamped * np.float32(255)).astype(np.uint8)


def write_image(
    target: pathlib.Path,
    values: np.ndarray,
    data_type: DataType | None,
    dimensions: Sequence[Any],
    where: str,
) -> None:
    """``values`` (the resource's) written into the image ``target`` as the writeFile
    command at ``where`` says."""
    if data_type is None or data_type not in _IMAGE_TYPES:
        raise model_error(
            f"{where}.resource", "a FLOAT32 or FLOAT16 resource (an image's values, 0 to 1)",
            "untyped" if data_type is None else data_type.name,
        )  # fmt: skip
    sizes = [json_uint(v, f"{where}.dimensions[{i}]", 32) for i, v in enumerate(dimensions)]
    channels, height, width = (sizes[i] if len(sizes) > i else 1 for i in (1, 2, 3))
    if channels not in _WRITTEN_MODES:
        raise model_error(
            f"{where}.dimensions", "[N, C, H, W] with C 1 (grayscale), 3 (RGB) or 4 (RGBA)",
            list(dimensions),
        )  # fmt: skip
    count = channels * height * width
    if count > values.size:
        raise model_error(
            f"{where}.dimensions", f"at most {values.size} elements (the resource's)",
            list(dimensions),
        )  # fmt: skip
    pixels = pixels_of(values[:count]).reshape(channels, height, width).transpose(1, 2, 0)
    image_module = _pillow(f"{where}.targetPath")
    image = image_module.fromarray(
        np.ascontiguousarray(pixels[:, :, 0] if channels == 1 else pixels),
        _WRITTEN_MODES[channels],
    )
    image.save(target)
