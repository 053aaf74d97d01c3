"""Fingerprints of everything a step reads, so that nox skips a step that already passed on exactly
those inputs (a stamp file holds the fingerprint it passed on).

``nox -s docs`` keeps two stamps: ``build/docs.stamp`` (the whole session — the site, its wheel, its
checks and the prose doctests — passed on this source tree, these installed packages, this
environment and these arguments, and the built site is still the one it wrote) and
``build/site-checks.stamp`` (the built-site checks passed on exactly this site and their inputs).

The fingerprint hashes the name and bytes of every file under the given paths (``__pycache__`` left
out) and the given environment variables; any change to any of them, a file added or removed
included, gives another fingerprint.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path

# Folders that are caches or outputs wherever they are: never inputs.
CACHE_DIRS = frozenset({"__pycache__", ".pytest_cache", ".hypothesis", ".ruff_cache", ".mypy_cache"})
# Environment variables of the shell itself (its prompt, terminal, history, the last command): what a
# build reads does not depend on them, and they differ between two commands typed in one shell.
SHELL_ENV = frozenset({
    "_", "OLDPWD", "SHLVL", "TERM", "COLORTERM", "COLUMNS", "LINES", "PS1", "PS2", "PS4", "PROMPT_COMMAND",
    "HISTFILE", "HISTSIZE", "HISTFILESIZE", "HISTCONTROL", "LS_COLORS", "LESS", "LESSOPEN", "LESSCLOSE",
    "DISPLAY", "WINDOWID", "SSH_CLIENT", "SSH_CONNECTION", "SSH_TTY", "SSH_AUTH_SOCK", "TMUX", "TMUX_PANE",
    "STY", "GPG_TTY", "MAIL", "TERM_PROGRAM", "TERM_PROGRAM_VERSION", "TERM_SESSION_ID",
    # pyenv's shims: where a command was typed, and the bookkeeping of its pip hook, which
    # `python3 -m pip install "nox[uv]" && python3 -m nox -s docs` leaves set for the second command only
    "PYENV_DIR", "PYENV_HOOK_PATH", "PYENV_REHASH_REAL_COMMAND", "_PYENV_INSTALL_PREFIX",
})


def fingerprint(root: Path, paths: Iterable[Path], env: Mapping[str, str]) -> str:
    """The sha256 of the files under ``paths`` (named relative to ``root``) and of ``env``.

    >>> import tempfile
    >>> top = Path(tempfile.mkdtemp())
    >>> _ = (top / "a.txt").write_text("a")
    >>> key = fingerprint(top, [top], {})
    >>> _ = (top / "a.txt").write_text("b")
    >>> fingerprint(top, [top], {}) == key
    False
    """
    digest = hashlib.sha256()
    for name in sorted(env):
        digest.update(f"env {name}={env[name]}\0".encode())
    for top in paths:
        files = sorted(top.rglob("*")) if top.is_dir() else [top]
        for path in files:
            if "__pycache__" in path.parts or path.is_dir():
                continue
            data = path.read_bytes() if path.exists() else b"(missing)"
            name = path.relative_to(root) if path.is_relative_to(root) else path
            digest.update(f"file {name} {len(data)}\0".encode() + data)
    return digest.hexdigest()


def fingerprint_parts(root: Path, groups: Mapping[str, Iterable[Path]], env: Mapping[str, str]) -> dict[str, str]:
    """One fingerprint per named group of files and one per variable of ``env`` (named ``$NAME``; a hash,
    so a stamp holds no variable's value): a stamp that holds them can say which part changed."""
    parts = {name: fingerprint(root, files, {}) for name, files in groups.items()}
    return {**parts, **{f"${name}": hashlib.sha256(value.encode()).hexdigest() for name, value in env.items()}}


def changed_parts(old: Mapping[str, str], new: Mapping[str, str]) -> list[str]:
    """The names whose fingerprints differ between two ``fingerprint_parts`` results (added or gone included).

    >>> changed_parts({"docs": "1", "kernellab": "2"}, {"docs": "1", "kernellab": "3", "tools": "4"})
    ['kernellab', 'tools']
    """
    return sorted(name for name in {*old, *new} if old.get(name) != new.get(name))


def source_files(root: Path, outputs: Iterable[Path] = ()) -> list[Path]:
    """Every file of the source tree at ``root``, sorted: all but its top-level dot entries (``.git``,
    ``.nox``, caches), the build folders (``build``, ``build-*`` and ``outputs``) and caches anywhere.

    Whatever a build reads from the repository is in this list (docs/, gallery/, kernellab/, tools/,
    tests/, pyproject.toml, noxfile.py, README.md...), so a stamp keyed on it misses after any edit.
    """
    outputs = {Path(p).resolve() for p in outputs}
    found = []
    for folder, dirs, files in os.walk(root):
        here = Path(folder)
        top = here == root
        dirs[:] = sorted(d for d in dirs if d not in CACHE_DIRS and not d.endswith(".egg-info")
                         and not (top and (d.startswith(".") or d == "build" or d.startswith("build-")))
                         and (here / d).resolve() not in outputs)
        found += [here / f for f in files if not (top and f.startswith("."))]
    return sorted(found)


def stable_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """``environ`` without the shell's own variables (SHELL_ENV): what a stamp is keyed on."""
    return {name: value for name, value in environ.items() if name not in SHELL_ENV}


def installed_packages(venv: Path) -> list[Path]:
    """The files that say what a virtual environment holds: its pyvenv.cfg (the interpreter) and every
    installed distribution's RECORD (its files and their hashes)."""
    return [venv / "pyvenv.cfg", *sorted(venv.glob("lib/python*/site-packages/*.dist-info/RECORD"))]


def passed_on(stamp: Path, key: str) -> bool:
    """Whether ``stamp`` says the check passed on the inputs whose fingerprint is ``key``."""
    return stamp.is_file() and stamp.read_text(encoding="utf-8") == key


def read_stamp(stamp: Path) -> dict:
    """The fields a JSON stamp holds; empty when it is missing or unreadable (then nothing is skipped)."""
    try:
        fields = json.loads(stamp.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return fields if isinstance(fields, dict) else {}


def write_stamp(stamp: Path, **fields: object) -> None:
    """Write a JSON stamp (through a temporary file, so that a stamp is never half-written)."""
    stamp.parent.mkdir(parents=True, exist_ok=True)
    partial = stamp.with_name(stamp.name + ".partial")
    partial.write_text(json.dumps(fields, indent=1, sort_keys=True), encoding="utf-8")
    partial.replace(stamp)
