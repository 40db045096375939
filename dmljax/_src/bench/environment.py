"""What a benchmark figure depends on besides the code: device, versions, flags."""

from __future__ import annotations

import datetime
import importlib.metadata
import os
import platform
import shutil
import subprocess
from typing import Any

import jax

import dmljax

__all__ = ["environment"]

# Read once when the backend starts; each changes what XLA compiles or how memory is held.
_ENVIRONMENT_VARIABLES = (
    "XLA_FLAGS",
    "XLA_PYTHON_CLIENT_PREALLOCATE",
    "XLA_PYTHON_CLIENT_MEM_FRACTION",
    "JAX_ENABLE_X64",
    "JAX_PLATFORMS",
    "CUDA_VISIBLE_DEVICES",
)


def _version(distribution: str) -> str | None:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


def _jax_plugins() -> dict[str, str]:
    # The CUDA/ROCm plugins are separate distributions whose names carry the CUDA version.
    found: dict[str, str] = {}
    for distribution in importlib.metadata.distributions():
        name = distribution.name or ""
        if name.lower().replace("_", "-").startswith(("jax-cuda", "jax-rocm")):
            found[name] = distribution.version
    return dict(sorted(found.items()))


def _nvidia_smi() -> str | None:
    executable = shutil.which("nvidia-smi")
    if executable is None:
        return None
    query = "name,driver_version,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,power.limit"
    try:
        result = subprocess.run(
            [executable, f"--query-gpu={query}", "--format=csv"],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.SubprocessError) as e:
        return f"nvidia-smi failed: {e}"
    return (result.stdout or result.stderr).strip()


def environment(*, quick: bool, small: bool) -> dict[str, Any]:
    """Everything a result file records about the machine and the run."""
    device = jax.devices()[0]
    return {
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "quick": quick,
        "small_sizes": small,
        "platform": jax.default_backend(),
        "device_kind": device.device_kind,
        "device": str(device),
        "device_count": jax.device_count(),
        "jax": jax.__version__,
        "jaxlib": _version("jaxlib"),
        "jax_plugins": _jax_plugins(),
        "dmljax": dmljax.__version__,
        "numpy": _version("numpy"),
        "python": platform.python_version(),
        "os": platform.platform(),
        "machine": platform.machine(),
        "cpu_count": os.cpu_count(),
        "environment_variables": {name: os.environ.get(name) for name in _ENVIRONMENT_VARIABLES},
        "nvidia_smi": _nvidia_smi(),
    }
