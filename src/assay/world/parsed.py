"""Task files parsed in an earlier process, kept under $ASSAY_HOME so that a later load of the same
bytes need not parse their TOML again (most of a large world's load).

What is kept is the TOML's data as JSON, under the file's bytes and the parsing code (assay's
version, Python's, the reading module's bytes); it is validated into its model on every load as a
file read afresh is, so a kept entry can only ever save the parse. A file whose data JSON cannot
hold exactly (TOML dates and times) is parsed every time.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Any

from assay import __version__
from assay.formats.files import read_toml
from assay.world.proofs import proof_key
from assay.world.snapshot import cache_dir

PARSING_CODE = ("assay.formats.files",)


class ParsedFiles:
    """The kept parses of one world's task files: read at load, written back if any was missing."""

    def __init__(self, root: Path):
        name = hashlib.sha256(str(root.resolve()).encode()).hexdigest()
        self.path = cache_dir() / "parsed" / f"{name}.json"
        self.key = proof_key(PARSING_CODE, "parsed", __version__, sys.version)
        self.kept: dict[str, list[Any]] = self._read()
        self.changed = False
        self.seen: set[str] = set()

    def data(self, file: Path, content: bytes) -> dict[str, Any]:
        """The TOML data of `file`, whose bytes are `content`: kept, or parsed (a SpecError)."""
        digest = hashlib.sha256(content).hexdigest()
        self.seen.add(file.name)
        kept = self.kept.get(file.name)
        if kept is not None and kept[0] == digest:
            return kept[1]
        data = read_toml(file, content)
        try:
            exact = json.loads(json.dumps(data)) == data
        except TypeError:  # a date or time: JSON has none
            exact = False
        if exact:
            self.kept[file.name] = [digest, data]
            self.changed = True
        return data

    def save(self) -> None:
        """Write the kept parses if one was added (those of files this load did not read are
        dropped); a home that cannot be written to only costs the next load the parse."""
        if not self.changed:
            return
        self.kept = {name: entry for name, entry in self.kept.items() if name in self.seen}
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            partial = self.path.with_suffix(f".{os.getpid()}.part")
            partial.write_text(json.dumps({"key": self.key, "files": self.kept}))
            os.replace(partial, self.path)  # whole or not at all, for a process reading it now
        except OSError:
            return
        self.changed = False

    def _read(self) -> dict[str, list[Any]]:
        try:
            stored = json.loads(self.path.read_bytes())
        except (OSError, ValueError):
            return {}
        if not isinstance(stored, dict) or stored.get("key") != self.key:
            return {}
        files = stored.get("files")
        return files if isinstance(files, dict) else {}
