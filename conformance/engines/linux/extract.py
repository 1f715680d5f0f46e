"""Take named functions and macros out of a Linux source tree, unchanged, at build time.

No kernel code is in this repository: the harness (harness_*.c) is compiled together with
definitions cut, byte for byte, out of the kernel's own files. A :class:`Want` names what to
take: the file, the kind (``function`` or ``macro``), the name, and for a function the
signature the harness was written against. When a kernel version moves a function to another
file, renames it or changes its signature, :func:`extract` raises :class:`ExtractError` naming
the function, the file and what differs, instead of producing a harness that compiles against
the wrong code.

The kernel comes from a directory (``KERNEL_SRC``, any unpacked tree) or from a source tarball
(Debian's linux-source-X.Y, /usr/src/linux-source-X.Y.tar.xz): :func:`unpack` takes only the
files needed out of the tarball, once, into a cache directory.
"""

from __future__ import annotations

import functools
import re
import subprocess
import tarfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

FUNCTION: Final = "function"
MACRO: Final = "macro"
#: A type definition: ``union NAME``, ``struct NAME``, ``enum NAME`` (through its ``};``), an
#: anonymous enum named by one of its enumerators (``enum {FIRST}``), or ``typedef NAME``.
TYPE: Final = "type"
#: A variable defined at the top level with an initializer in braces (``static const struct
#: mm_walk_ops reset_cmma_walk_ops = { ... };``), by its name.
VARIABLE: Final = "variable"


class ExtractError(Exception):
    """What the kernel tree lacks or changed, in one sentence naming the function and file."""


@dataclass(frozen=True)
class Want:
    """One definition to take: ``name`` of ``kind`` in ``path`` (relative to the tree's root).
    ``signature`` (functions): the declaration up to the opening brace, whitespace-normalised,
    as the harness expects it."""

    path: str
    name: str
    kind: str = FUNCTION
    signature: str = ""


# ------------------------------------------------------------------------ C text scanning


@functools.lru_cache(maxsize=64)
def _blank_comments_and_strings(text: str) -> str:
    """The text with comments, string and character literals replaced by spaces (newlines
    kept), so braces and names inside them are not mistaken for code; offsets are unchanged."""
    out = list(text)
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
        else:
            i += 1
            continue
        for k in range(i, j):
            if out[k] != "\n":
                out[k] = " "
        i = j
    return "".join(out)


def _match(code: str, start: int, open_: str, close: str) -> int:
    """The offset just past the bracket that closes the one at ``start``."""
    depth = 0
    for i in range(start, len(code)):
        if code[i] == open_:
            depth += 1
        elif code[i] == close:
            depth -= 1
            if depth == 0:
                return i + 1
    raise ExtractError("unbalanced brackets")


def normalise(signature: str) -> str:
    """A declaration with its whitespace collapsed (``int f(int a,\\n\\tint b)`` ->
    ``int f(int a, int b)``)."""
    s = re.sub(r"\s+", " ", signature).strip()
    return re.sub(r"\( ", "(", re.sub(r" \)", ")", s))


#: Words that do not change how a call passes its arguments: qualifiers, signedness, storage
#: class and the kernel's function attributes.
_HARMLESS: Final = frozenset({
    "const", "volatile", "signed", "unsigned", "static", "inline", "__always_inline", "extern",
    "notrace", "noinline", "__init", "__must_check", "__maybe_unused", "__inline", "__inline__",
})  # fmt: skip


def _type_shape(decl: str, named: bool) -> str:
    """A type with the harmless words (:data:`_HARMLESS`) and, if ``named``, the declared name
    left out: ``unsigned long *oldpte`` -> ``long *``, ``unsigned int orc`` -> ``int``."""
    decl = re.sub(r"\[[^\]]*\]", "*", decl)  # an array parameter is a pointer
    tokens = re.findall(r"\w+|\*", decl)
    if named and tokens and re.fullmatch(r"\w+", tokens[-1]) and len(tokens) > 1:
        tokens.pop()
    kept = [t for t in tokens if t not in _HARMLESS and t != "int" or t == "*"]
    if not any(t != "*" for t in kept):  # unsigned, unsigned int, int: all int
        kept.insert(0, "int")
    return " ".join(kept)


def shape(signature: str, name: str) -> tuple[str, tuple[str, ...]]:
    """What a call to a definition depends on: the return type and the parameters' types, each
    without the harmless words and the parameters' names (:func:`_type_shape`)."""
    at = re.search(r"(?<!\w)" + re.escape(name) + r"\s*\(", signature)
    if at is None:
        return signature, ()
    inside = signature[at.end():signature.rfind(")")]
    params, depth, cur = [], 0, ""
    for ch in inside:
        depth += ch == "("
        depth -= ch == ")"
        if ch == "," and depth == 0:
            params.append(cur)
            cur = ""
        else:
            cur += ch
    params.append(cur)
    types = tuple(_type_shape(x, named=True) for x in params if x.strip() not in ("", "void"))
    return _type_shape(signature[:at.start()], named=False), types


def harmless(expected: str, found: str, name: str) -> bool:
    """Whether ``found`` differs from ``expected`` only in what cannot change the harness's
    calls: qualifiers, signedness, parameter names, ``static``/``inline``. Safe, because the
    harness is compiled together with the tree's own definition: every call it makes is checked
    by the compiler against the tree's prototype, and an argument of the same width converts
    as the kernel's own callers' do; a parameter added, removed, or of another kind (a pointer
    for a number, another struct) still differs here, and stops the build."""
    return shape(normalise(expected), name) == shape(normalise(found), name)


def _declaration_start(code: str, name_at: int) -> int:
    """Where the declaration holding the name at ``name_at`` begins: after the previous
    top-level ``;``, ``}`` or preprocessor line, or a blank line."""
    i = code.rfind("\n", 0, name_at) + 1
    while i > 0:
        prev_end = i - 1
        prev_start = code.rfind("\n", 0, prev_end) + 1
        line = code[prev_start:prev_end].strip()
        if not line or line.endswith((";", "}", "{")) or line.startswith("#"):
            break
        i = prev_start
    return i


def find_function(text: str, name: str) -> tuple[str, str, int]:
    """The definition of function ``name`` in ``text`` (its whole text, from the start of the
    declaration through the closing brace, with the comment lines above it left out), its
    normalised signature and its first line's number. Raises ExtractError if there is none."""
    code = _blank_comments_and_strings(text)
    for m in re.finditer(r"(?<![\w.>])" + re.escape(name) + r"\s*\(", code):
        # only a name at the top level (not a call inside another body) starts a definition
        if code.count("{", 0, m.start()) != code.count("}", 0, m.start()):
            continue
        close = _match(code, m.end() - 1, "(", ")")
        rest = code[close:]
        body = re.match(r"\s*\{", rest)
        if body is None:
            continue  # a prototype or a call
        start = _declaration_start(code, m.start())
        brace = close + body.end() - 1
        end = _match(code, brace, "{", "}")
        return text[start:end] + "\n", normalise(code[start:brace]), text.count("\n", 0, start) + 1
    raise ExtractError(f"no definition of {name}")


def find_macro(text: str, name: str) -> str:
    """The ``#define name ...`` line of ``text``, with its continuation lines."""
    m = re.search(r"^[ \t]*#[ \t]*define[ \t]+" + re.escape(name) + r"\b.*?(?<!\\)$", text,
                  re.MULTILINE | re.DOTALL)  # fmt: skip
    if m is None:
        raise ExtractError(f"no #define of {name}")
    return m.group(0) + "\n"


def find_type(text: str, name: str) -> tuple[str, int]:
    """The definition of type ``name`` in ``text`` and its first line's number: ``union pte``,
    ``struct page_table`` or ``enum pgste_gps_usage`` through the ``};`` that ends it;
    ``enum {ENUMERATOR}`` the anonymous enum that defines ENUMERATOR; ``typedef NAME`` the
    typedef declaring NAME. Only a definition at the top level counts."""
    code = _blank_comments_and_strings(text)
    kind, _, tag = name.partition(" ")
    if kind == "typedef":
        for m in re.finditer(r"^typedef\b[^;]*?\b" + re.escape(tag) + r"\b[^;]*;", code, re.M):
            if code.count("{", 0, m.start()) == code.count("}", 0, m.start()):
                return text[m.start():m.end()] + "\n", text.count("\n", 0, m.start()) + 1
        raise ExtractError(f"no typedef of {tag}")
    if kind not in ("union", "struct", "enum") or not tag:
        raise ExtractError(f"not a type name: {name!r}")
    anonymous = tag.startswith("{") and tag.endswith("}")
    pattern = (rf"^{kind}\s*\{{" if anonymous else rf"^{kind}\s+{re.escape(tag)}\s*\{{")
    for m in re.finditer(pattern, code, re.M):
        if code.count("{", 0, m.start()) != code.count("}", 0, m.start()):
            continue
        end = _match(code, m.end() - 1, "{", "}")
        semi = re.match(r"[^;{}]*;", code[end:])
        if semi is None:
            continue  # a variable's definition, not the type's
        if anonymous and not re.search(r"\b" + re.escape(tag[1:-1].strip()) + r"\b",
                                       code[m.start():end]):  # fmt: skip
            continue
        return text[m.start():end + semi.end()] + "\n", text.count("\n", 0, m.start()) + 1
    raise ExtractError(f"no definition of {name}")


def find_variable(text: str, name: str) -> tuple[str, int]:
    """The definition of the variable ``name`` in ``text`` (from the start of its declaration
    through the ``};`` that ends its braced initializer) and its first line's number. Only a
    definition at the top level counts."""
    code = _blank_comments_and_strings(text)
    for m in re.finditer(r"(?<![\w.>])" + re.escape(name) + r"\s*=\s*\{", code):
        if code.count("{", 0, m.start()) != code.count("}", 0, m.start()):
            continue
        end = _match(code, m.end() - 1, "{", "}")
        semi = re.match(r"\s*;", code[end:])
        if semi is None:
            continue
        start = _declaration_start(code, m.start())
        return text[start:end + semi.end()] + "\n", text.count("\n", 0, start) + 1
    raise ExtractError(f"no definition of the variable {name}")


# ------------------------------------------------------------------------ trees and tarballs


def read_source(root: Path, path: str) -> str:
    f = root / path
    if not f.is_file():
        raise ExtractError(f"{path} is not in the kernel tree {root}")
    return f.read_text(encoding="utf-8", errors="replace")


def extract(root: Path, wants: Iterable[Want], notes: list[str] | None = None) -> list[str]:
    """Every wanted definition, in order, each headed by a comment naming its file. Raises
    ExtractError naming the function and the file on anything missing or changed; a signature
    that differs harmlessly (:func:`harmless`) is taken, with a line in ``notes``."""
    texts: dict[str, str] = {}
    out = []
    for w in wants:
        if w.path not in texts:
            texts[w.path] = read_source(root, w.path)
        text = texts[w.path]
        try:
            if w.kind == MACRO:
                out.append(f"/* {w.path}: {w.name} */\n" + find_macro(text, w.name))
                continue
            if w.kind in (TYPE, VARIABLE):
                body, line = (find_type if w.kind == TYPE else find_variable)(text, w.name)
                out.append(f'/* {w.path}: {w.name} */\n#line {line} "{w.path}"\n' + body)
                continue
            body, signature, line = find_function(text, w.name)
        except ExtractError as exc:
            raise ExtractError(f"{w.path}: {exc}: the kernel moved or renamed {w.name}; the "
                               f"harness needs an update for this version") from None  # fmt: skip
        if w.signature and signature != normalise(w.signature):
            if harmless(w.signature, signature, w.name):
                if notes is not None:
                    notes.append(f"{w.path}: the signature of {w.name} differs harmlessly "
                                 f"(qualifiers, signedness or names): `{signature}`")  # fmt: skip
                out.append(f'/* {w.path}: {w.name} */\n#line {line} "{w.path}"\n' + body)
                continue
            raise ExtractError(f"{w.path}: the signature of {w.name} changed: the harness "
                               f"expects `{normalise(w.signature)}`, the tree has `{signature}`")  # fmt: skip
        out.append(f'/* {w.path}: {w.name} */\n#line {line} "{w.path}"\n' + body)
    return out


def version(root: Path) -> str:
    """The kernel version of a tree, from its top Makefile (VERSION.PATCHLEVEL.SUBLEVEL)."""
    text = read_source(root, "Makefile")
    fields = dict(re.findall(r"^(VERSION|PATCHLEVEL|SUBLEVEL|EXTRAVERSION)[ \t]*=[ \t]*(\S*)", text,
                             re.MULTILINE))  # fmt: skip
    if "VERSION" not in fields or "PATCHLEVEL" not in fields:
        raise ExtractError(f"{root}/Makefile names no VERSION and PATCHLEVEL")
    v = f"{fields['VERSION']}.{fields['PATCHLEVEL']}.{fields.get('SUBLEVEL') or 0}"
    return v + str(fields.get("EXTRAVERSION", ""))


def unpack(tarball: Path, paths: Sequence[str], dest: Path) -> Path:
    """The tree holding ``paths`` (and the top Makefile) taken out of ``tarball`` into ``dest``
    (once: a later call with the same files finds them there). Returns the tree's root."""
    stamp = dest / ".unpacked"
    wanted = sorted({"Makefile", *paths})
    if stamp.is_file() and stamp.read_text().split() == wanted:
        return dest / stamp.with_suffix(".root").read_text().strip()
    if not tarball.is_file():
        raise ExtractError(f"no kernel source tarball {tarball}")
    # The tarball's top directory (linux-source-6.12/) is read from its first member.
    with tarfile.open(tarball) as tf:
        first = tf.next()
        if first is None:
            raise ExtractError(f"{tarball} is empty")
        top = first.name.split("/")[0]
    dest.mkdir(parents=True, exist_ok=True)
    # tar(1) with xz is several times faster than tarfile; members are named, not globbed.
    members = [f"{top}/{p}" for p in wanted]
    r = subprocess.run(["tar", "-xf", str(tarball), "-C", str(dest), *members],
                       capture_output=True, text=True)  # fmt: skip
    if r.returncode != 0:
        raise ExtractError(f"taking {', '.join(wanted)} out of {tarball} failed: "
                           f"{r.stderr.strip()[-500:]}")  # fmt: skip
    stamp.with_suffix(".root").write_text(top + "\n")
    stamp.write_text("\n".join(wanted) + "\n")
    return dest / top
