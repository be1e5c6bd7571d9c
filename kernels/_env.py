"""Decide, once and before triton is imported, whether Triton compiles for a GPU or interprets on CPU.

Without CUDA, launching a Triton kernel needs TRITON_INTERPRET=1, and triton reads it when a kernel is
decorated, so this module runs first in the package. Every launch goes through LAUNCH_LOCK: the
interpreter is not thread-safe, and on a GPU serialising classroom sessions keeps timings honest.
"""
import importlib.util
import os
import threading

import torch

HAS_CUDA = torch.cuda.is_available()
if not HAS_CUDA:
    os.environ.setdefault("TRITON_INTERPRET", "1")
INTERPRET = os.environ.get("TRITON_INTERPRET", "0") not in ("", "0")
HAS_TRITON = importlib.util.find_spec("triton") is not None

LAUNCH_LOCK = threading.RLock()
