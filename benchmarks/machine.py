"""What the numbers were measured on: processor, cores, library versions, BLAS kernels."""

from __future__ import annotations

import datetime
import importlib.metadata
import os
import platform
import subprocess
from typing import Any

import torch


def cpu_model() -> str:
    """``lscpu``'s model name (falls back to /proc/cpuinfo, then to platform.processor())."""
    try:
        output = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        output = ""
    if not output and os.path.exists("/proc/cpuinfo"):
        with open("/proc/cpuinfo") as cpuinfo:
            output = cpuinfo.read().replace("model name", "Model name")
    for line in output.splitlines():
        if line.strip().startswith("Model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def blas() -> list[str]:
    """Which BLAS libraries are loaded, their kernel and thread count (needs threadpoolctl)."""
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return ["threadpoolctl is not installed: BLAS kernel unknown"]
    found = []
    for info in threadpool_info():
        kernel = f"kernel {info['architecture']}, " if info.get("architecture") else ""
        version = f" {info['version']}" if info.get("version") else ""
        found.append(f"{info['internal_api']}{version} ({info['prefix']}): {kernel}"
                     f"{info['num_threads']} thread(s)")
    mkl = "MKL" if torch.backends.mkl.is_available() else "no MKL"
    found.append(f"torch: {mkl}, {torch.get_num_threads()} intra-op thread(s)")
    return found


def describe(unset: list[str]) -> dict[str, Any]:
    versions = {name: importlib.metadata.version(name)
                for name in ["miniautograd", "numpy", "torch", "mygrad", "autograd", "micrograd"]}
    return {
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "versions": versions,
        "blas": blas(),
        "threads_env": {name: os.environ.get(name) for name in
                        ["OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"]},
        "unset_env": unset,
        "load_average": [round(load, 2) for load in os.getloadavg()],
        "date": datetime.date.today().isoformat(),
    }


def markdown(machine: dict[str, Any]) -> str:
    versions = ", ".join(f"{name} {version}" for name, version in machine["versions"].items())
    lines = [
        f"- Date: {machine['date']}; CPU: {machine['cpu']}, {machine['cores']} cores "
        f"(load average at start: {', '.join(map(str, machine['load_average']))})",
        f"- Python {machine['python']}; {versions}",
        "- Single-threaded: " + ", ".join(f"{k}={v}" for k, v in machine["threads_env"].items())
        + ", torch.set_num_threads(1)"
        + (f"; unset for this run: {', '.join(machine['unset_env'])}" if machine["unset_env"]
           else ""),
        *(f"- BLAS: {line}" for line in machine["blas"]),
    ]
    return "\n".join(lines) + "\n"
