"""What pyproject.toml cannot say: the packages, found rather than listed, and the commit the
package is built from.

Every directory with an ``__init__.py`` under tlcrunner/, refimpl/ and conformance/ is a package
(setuptools' find_packages), so a new subpackage travels without an edit here; spec/ and model/
travel as the package data packages ``tlcrunner.data.spec`` and ``tlcrunner.data.model``
(pyproject.toml maps their directories). The build writes the file ``COMMIT`` into the built tlcrunner package, which ``cmma-spec
--version`` reads in an installed package (:mod:`tlcrunner.version`).
"""

from __future__ import annotations

import sys
from pathlib import Path

from setuptools import find_packages, setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from tlcrunner.version import COMMIT_FILE, source_commit  # noqa: E402

PACKAGES = find_packages(where=str(HERE), include=["tlcrunner*", "refimpl*", "conformance*"])


class BuildPyWithCommit(build_py):
    """build_py, then the commit of the sources into the built tlcrunner package."""

    def run(self) -> None:
        super().run()
        target = Path(self.build_lib) / "tlcrunner" / COMMIT_FILE
        target.write_text(source_commit(HERE) + "\n", encoding="utf-8")


setup(packages=[*PACKAGES, "tlcrunner.data.spec", "tlcrunner.data.model"],
      cmdclass={"build_py": BuildPyWithCommit})
