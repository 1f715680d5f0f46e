"""Where the specs, the models and TLC's jar are: in a checkout, or in an installed package.

A checkout has spec/ and model/ beside the packages, and keeps TLC in .cache/tlc, so that
``make clean`` resets everything and the make flow writes nothing outside the clone. A
``pip install`` of the repository carries spec/ and model/ as package data, in
``tlcrunner/data/`` (pyproject.toml maps them there), and caches TLC where the user's cache
belongs: ``$XDG_CACHE_HOME/cmma-spec``, else ``~/.cache/cmma-spec``; never in site-packages,
which may be read-only and is not a cache.
"""

from __future__ import annotations

import os
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[1]
PACKAGED = Path(__file__).resolve().parent / "data"


def in_checkout() -> bool:
    return (CHECKOUT / "model" / "manifest.json").is_file() and (CHECKOUT / "spec").is_dir()


def data_root() -> Path:
    """The folder holding spec/ and model/."""
    return CHECKOUT if in_checkout() else PACKAGED


def default_manifest() -> Path:
    return data_root() / "model" / "manifest.json"


def user_cache_dir() -> Path:
    xdg = os.environ.get("XDG_CACHE_HOME")
    # The XDG spec: a relative path in the variable is invalid and must be ignored.
    base = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".cache"
    return base / "cmma-spec"


def tlc_cache_dir() -> Path:
    return CHECKOUT / ".cache" / "tlc" if in_checkout() else user_cache_dir()
