"""model/manifest.json: which models to check, what each must produce, and its regression pins.

Format (paths relative to the manifest's directory)::

    {"models": [
      {"name": "MCFoo",                 unique; what --models matches
       "module": "MCFoo.tla",
       "config": "MCFoo.cfg",           several entries may share a module
       "expect": "holds" | "violates <PropertyName>" | "deadlock",
       "distinct": 118,                 distinct states TLC reports (null: not pinned yet, or
       "depth": 7,                        TLC reports none, e.g. a violation in an initial state)
       "size": "ci" | "deep",           ci: part of `make test`; deep: only `make check`
       "workers": 1,                    optional, default 1; an integer or "auto"
       "timeout": 300,                  optional, seconds
       "about": "one line",
       "witnesses": {"P": "W", ...},    optional: for property P the model checks, W names the
                                          states (an Inv) or steps (a Prop) P is about, which
                                          this model must reach (tlcrunner.witness, D130)
       "breaks": ["P", ...],            a broken twin only: the promises (THEOREM-backed
                                          properties and refinements) its contract alone
                                          fails (tlcrunner.contract --matrix; docs/contract.md)
       "step detail": "one line",       a broken twin only: why no promise is broken (a free
                                          choice the judge and the refimpl equality pin)
       "open hole": "one line"}         a broken twin only: the promise, missing from the
    ],                                    contract, that would catch it (docs/contract.md)
     "environment": ["OfferedSteps"]}   optional: the definitions that only choose which of the
                                          spec's steps a model offers (configuration, D259);
                                          `make mutate` leaves them alone

Pins are only meaningful with one worker (TLC's breadth-first order is then fixed); that is why
1 is the default. Anything malformed is rejected with the entry and field named: a manifest
that is silently half-read would silently check less.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

SIZES = ("ci", "deep")
DEFAULT_TIMEOUT_S = {"ci": 300.0, "deep": 3600.0}
# The order fields are written in by --update-pins, so the file's diffs stay small.
KEY_ORDER = (
    "name", "module", "config", "expect", "distinct", "depth", "size", "workers", "timeout",
    "about", "witnesses", "breaks", "step detail", "open hole",
)  # fmt: skip
_REQUIRED = frozenset(KEY_ORDER) - {"workers", "timeout", "witnesses", "breaks", "step detail",
                                    "open hole"}  # fmt: skip
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*")
_PROPERTY = re.compile(r"[A-Za-z_][A-Za-z0-9_!]*")
# A witness: an operator name, optionally @ the variable tuple a step witness is judged on.
_WITNESS = re.compile(r"[A-Za-z_][A-Za-z0-9_!]*(@[A-Za-z_][A-Za-z0-9_]*)?")


class ManifestError(ValueError):
    """The manifest is not what this module documents."""


@dataclass(frozen=True)
class Expectation:
    kind: Literal["holds", "violates", "deadlock"]
    prop: str | None = None

    def __str__(self) -> str:
        return f"violates {self.prop}" if self.kind == "violates" else self.kind


@dataclass(frozen=True)
class ModelEntry:
    name: str
    module: Path  # absolute
    config: Path  # absolute
    expect: Expectation
    distinct: int | None
    depth: int | None
    size: str
    workers: int | Literal["auto"]
    timeout: float
    about: str
    #: (property, operator): the TLA+ operator naming the states or steps the property is
    #: about, in manifest order (a tuple, so that an entry stays hashable; D130)
    witnesses: tuple[tuple[str, str], ...] = ()
    #: a broken twin's promises its contract alone fails (None: not recorded)
    breaks: tuple[str, ...] | None = None
    #: a broken twin that breaks no promise: the free choice it changes
    step_detail: str = ""
    #: a broken twin no promise catches yet: the promise missing from the contract
    open_hole: str = ""

    @property
    def is_twin(self) -> bool:
        """A broken twin (D355): a plausible mistake the contract must catch. Findings (a real
        implementation's departure) and scenarios are not twins."""
        return "_Twin_" in self.name and self.expect.kind == "violates"


@dataclass(frozen=True)
class Manifest:
    path: Path
    entries: list[ModelEntry]
    #: definitions that choose which steps a model offers (D259): not mutated
    environment: tuple[str, ...] = ()

    @property
    def directory(self) -> Path:
        return self.path.parent


def parse_expect(text: str) -> Expectation:
    """``holds`` | ``deadlock`` | ``violates <PropertyName>``; raises ValueError otherwise."""
    if text == "holds":
        return Expectation("holds")
    if text == "deadlock":
        return Expectation("deadlock")
    words = text.split(" ")
    if len(words) == 2 and words[0] == "violates" and _PROPERTY.fullmatch(words[1]):
        return Expectation("violates", words[1])
    raise ValueError(
        f'expected "holds", "deadlock" or "violates <PropertyName>", got {text!r}'
    )


def load_manifest(path: Path) -> Manifest:
    path = Path(path)
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ManifestError(f"{path}: no such file (the list of models to check)") from None
    except json.JSONDecodeError as exc:
        raise ManifestError(
            f"{path}: not valid JSON: line {exc.lineno}, column {exc.colno}: {exc.msg}"
        ) from None
    if not isinstance(raw, dict) or "models" not in raw or set(raw) - {"models", "environment"}:
        keys = sorted(raw) if isinstance(raw, dict) else type(raw).__name__
        raise ManifestError(
            f'{path}: expected an object with the key "models" (and optionally "environment"), '
            f"got {keys}"
        )
    environment = raw.get("environment", [])
    if not isinstance(environment, list) or not all(
        isinstance(n, str) and _PROPERTY.fullmatch(n) and "!" not in n for n in environment
    ):
        raise ManifestError(f'{path}: "environment" must be a list of operator names')
    models = raw["models"]
    if not isinstance(models, list):
        raise ManifestError(f'{path}: "models" must be a list')
    entries = [_entry(path, i, item) for i, item in enumerate(models)]
    seen: set[str] = set()
    for e in entries:
        if e.name in seen:
            raise ManifestError(f"{path}: model name {e.name!r} appears more than once")
        seen.add(e.name)
    return Manifest(path, entries, tuple(environment))


def _entry(path: Path, index: int, item: Any) -> ModelEntry:
    where = f"{path}: models[{index}]"
    if not isinstance(item, dict):
        raise ManifestError(f"{where}: expected an object, got {type(item).__name__}")
    if isinstance(item.get("name"), str):
        where += f" ({item['name']})"

    def bad(key: str, why: str) -> ManifestError:
        return ManifestError(f"{where}: field {key!r}: {why}, got {item.get(key)!r}")

    unknown = sorted(set(item) - set(KEY_ORDER))
    if unknown:
        raise ManifestError(f"{where}: unknown field(s) {unknown}; allowed: {list(KEY_ORDER)}")
    missing = sorted(_REQUIRED - set(item))
    if missing:
        raise ManifestError(f"{where}: missing field(s) {missing}")

    name = item["name"]
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise bad("name", "expected a name of letters, digits, '_', '.', '-'")

    files: dict[str, Path] = {}
    for key, suffix in (("module", ".tla"), ("config", ".cfg")):
        value = item[key]
        if not isinstance(value, str) or not value.endswith(suffix) or Path(value).is_absolute():
            raise bad(key, f"expected a relative path ending in {suffix}")
        file = (path.parent / value).resolve()
        if not file.is_file():
            raise bad(key, f"no such file {file}")
        files[key] = file

    if not isinstance(item["expect"], str):
        raise bad("expect", "expected a string")
    try:
        expect = parse_expect(item["expect"])
    except ValueError as exc:
        raise ManifestError(f"{where}: field 'expect': {exc}") from None

    pins: dict[str, int | None] = {}
    for key in ("distinct", "depth"):
        value = item[key]
        # bool is an int in Python; true is no state count.
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
            raise bad(key, "expected an integer >= 0 (or null when not pinned)")
        pins[key] = value

    size = item["size"]
    if size not in SIZES:
        raise bad("size", f"expected one of {list(SIZES)}")

    workers = item.get("workers", 1)
    if workers != "auto" and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
        raise bad("workers", 'expected an integer >= 1 or "auto"')

    timeout = item.get("timeout", DEFAULT_TIMEOUT_S[size])
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0:
        raise bad("timeout", "expected a number of seconds > 0")

    about = item["about"]
    if not isinstance(about, str) or not about.strip() or "\n" in about:
        raise bad("about", "expected one non-empty line")

    witnesses = item.get("witnesses", {})
    if not isinstance(witnesses, dict) or not all(
        isinstance(k, str) and _PROPERTY.fullmatch(k) and isinstance(v, str) and _WITNESS.fullmatch(v)
        for k, v in witnesses.items()
    ):
        raise bad("witnesses", 'expected an object of property name -> operator name (or "Op@vars")')
    if witnesses and size != "ci":
        raise bad("witnesses", 'expected only on a model of size "ci" (witnesses run in CI)')

    breaks = item.get("breaks")
    if breaks is not None and (not isinstance(breaks, list) or not all(
            isinstance(n, str) and _PROPERTY.fullmatch(n) for n in breaks)):
        raise bad("breaks", "expected a list of property names")
    step_detail = item.get("step detail", "")
    if not isinstance(step_detail, str) or "\n" in step_detail:
        raise bad("step detail", "expected one line")
    open_hole = item.get("open hole", "")
    if not isinstance(open_hole, str) or "\n" in open_hole:
        raise bad("open hole", "expected one line")
    if (breaks is not None or step_detail or open_hole) and expect.kind != "violates":
        raise bad("breaks", 'expected only on a broken twin (expect "violates ...")')

    return ModelEntry(
        name=name,
        module=files["module"],
        config=files["config"],
        expect=expect,
        distinct=pins["distinct"],
        depth=pins["depth"],
        size=size,
        workers=workers,
        timeout=float(timeout),
        about=about,
        witnesses=tuple(witnesses.items()),
        breaks=None if breaks is None else tuple(breaks),
        step_detail=step_detail,
        open_hole=open_hole,
    )


def write_fields(path: Path, fields: dict[str, dict[str, Any]]) -> None:
    """Set the given fields of the named models (a value None removes the field), rewriting the
    file canonically as :func:`write_pins` does."""
    path = Path(path)
    raw = json.loads(path.read_text(encoding="utf-8"))
    for item in raw["models"]:
        for key, value in fields.get(item["name"], {}).items():
            if value is None:
                item.pop(key, None)
            else:
                item[key] = value
    _write(path, raw)


def _write(path: Path, raw: dict[str, Any]) -> None:
    ordered = {k: raw[k] for k in ("environment",) if k in raw}
    ordered["models"] = [{k: item[k] for k in KEY_ORDER if k in item} for item in raw["models"]]
    text = json.dumps(ordered, indent=2, ensure_ascii=False) + "\n"
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)


def write_pins(path: Path, pins: dict[str, tuple[int | None, int | None]]) -> None:
    """Set ``distinct`` and ``depth`` of the named models, rewriting the file canonically.

    The file is re-read (not rebuilt from parsed entries) so every other value is kept as the
    author wrote it; keys are written in KEY_ORDER with a 2-space indent.
    """
    path = Path(path)
    raw = json.loads(path.read_text(encoding="utf-8"))
    for item in raw["models"]:
        if item["name"] in pins:
            item["distinct"], item["depth"] = pins[item["name"]]
    _write(path, raw)
