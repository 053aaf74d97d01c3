"""A fingerprint of everything a check reads, so that ``nox -s docs`` skips the built-site checks when
they already passed on exactly those inputs (the stamp holds the fingerprint they passed on).

The fingerprint hashes the name and bytes of every file under the given paths (``__pycache__`` left
out) and the given environment variables; any change to any of them, a file added or removed
included, gives another fingerprint.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from pathlib import Path


def fingerprint(root: Path, paths: Iterable[Path], env: Mapping[str, str]) -> str:
    """The sha256 of the files under ``paths`` (named relative to ``root``) and of ``env``."""
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


def passed_on(stamp: Path, key: str) -> bool:
    """Whether ``stamp`` says the check passed on the inputs whose fingerprint is ``key``."""
    return stamp.is_file() and stamp.read_text(encoding="utf-8") == key
