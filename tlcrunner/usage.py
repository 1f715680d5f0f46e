"""The name a command's usage line gives it: the door it was called through.

A command reached through the console script (``cmma-spec check``) says ``usage: cmma-spec check
...``; the same command reached as ``python -m tlcrunner check`` says that. :func:`front_door`
is set by :func:`tlcrunner.console.main` around the command it runs; every parser takes its
``prog`` from :func:`prog`. Also the one help formatter: the description and epilog as written
(their line breaks kept, for the exit-status tables), the options' defaults as the help texts
state them.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_FRONT: ContextVar[str | None] = ContextVar("front_door", default=None)


@contextmanager
def front_door(name: str) -> Iterator[None]:
    """Commands run inside are reached as ``name COMMAND`` (``cmma-spec check``)."""
    token = _FRONT.set(name)
    try:
        yield
    finally:
        _FRONT.reset(token)


def prog(python_m: str, command: str) -> str:
    """``python_m`` (``python -m tlcrunner check``), or, inside :func:`front_door`, the front
    door's name and ``command`` (``cmma-spec check``; ``command`` empty: the name alone)."""
    front = _FRONT.get()
    if front is None:
        return python_m
    return f"{front} {command}".rstrip()


#: The help formatter of every command: descriptions and epilogs keep their line breaks.
Formatter = argparse.RawDescriptionHelpFormatter
