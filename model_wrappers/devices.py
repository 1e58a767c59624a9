"""A device the user named, checked against this machine before anything loads: a run asked for a GPU that is not
there stops with one line, rather than running a 7B model on the CPU for hours."""

from __future__ import annotations


class DeviceNotFound(ValueError):
    """A named device this machine does not have; the message says what it has and what to give instead."""


# lm-eval's CLI passes this when --device is not given, GPU or not: no device the user asked for.
LM_EVAL_DEFAULT = "cuda:0"


def missing(device: str) -> str | None:
    """Why ``device`` (``cuda``, ``cuda:N``, ``mps``, ``cpu``, ...) is not on this machine, or None if it is."""
    import torch

    kind, _, index = str(device).partition(":")
    if kind == "cuda":
        count = torch.cuda.device_count() if torch.cuda.is_available() else 0
        if count == 0:
            return f"torch {torch.__version__} sees no CUDA device here"
        if index.isdigit() and int(index) >= count:
            return f"this machine has {count} CUDA device(s), cuda:0 to cuda:{count - 1}"
    elif kind == "mps" and not torch.backends.mps.is_available():
        return "the MPS backend (Apple GPUs) is not available here"
    return None


def check(who: str, device: str | None) -> None:
    """:class:`DeviceNotFound` for a named ``device`` this machine lacks."""
    why = missing(device) if device else None
    if why:
        raise DeviceNotFound(
            f"{who}: --device {device}: {why}; give a device it has (--device cpu runs on the CPU: fine for a small "
            "model, hours for a 7B one), or run where the GPU is")
