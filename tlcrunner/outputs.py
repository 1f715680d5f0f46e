"""Where a command will write, checked before it does any work: a run that ends in a traceback
after minutes of checking, its results lost, is worse than a usage error at once (exit 2).
"""

from __future__ import annotations

import tempfile
from pathlib import Path


def unwritable(path: Path, *, directory: bool = False) -> str | None:
    """Why ``path`` cannot be written, as one sentence for the command's error line; None when
    it can. ``path`` is a file (its missing parent directories created on writing), or with
    ``directory`` a directory (created with its parents on writing). The nearest folder that
    exists is tried with a temporary file, so a read-only file system or a folder without write
    permission is found whoever runs the command."""
    path = Path(path).absolute()
    if directory and path.exists() and not path.is_dir():
        return f"{path} is a file where a directory is to be written"
    if not directory and path.is_dir():
        return f"{path} is a directory where a file is to be written"
    base = path if directory else path.parent
    while not base.exists():
        base = base.parent
    if not base.is_dir():
        return f"cannot write {path}: {base} is a file, not a directory"
    try:
        with tempfile.TemporaryFile(dir=base):
            pass
    except OSError as exc:
        return f"cannot write {path}: {base} is not writable ({exc.strerror})"
    return None
