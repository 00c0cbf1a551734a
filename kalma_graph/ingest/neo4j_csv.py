"""The graph model as CSV files for `neo4j-admin database import full`: one place for the headers.

The columns are the properties the Neo4j engine writes (`store/loading.py` `entity_row`, and the
`create_*.neo4j.cypher` statements): `Entity {id, kb, name, name_lc, aliases, aliases_text,
description, types, cvt}`, `Value {id, value, datatype}`, `NameKey {key}`, `Meta {key, value}`,
`(:Entity)-[:STATEMENT {sid, pid, label}]->(:Entity|:Value)` and `(:NameKey)-[:NAMES]->(:Entity)`.

Every string is quoted (a quote doubled inside), so an empty string stays an empty string and only
an absent property is an empty field — as the engine stores no null property. Lists use U+001F (the
ASCII unit separator) between elements: any printable character can occur in an alias.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Iterable, Iterator

ARRAY_DELIMITER = "\x1f"
#: How `neo4j-admin` must read these files (the options that match the encoding below). Whether a
#: field may span lines is decided per import (`CsvFiles.admin_arguments`).
ADMIN_OPTIONS = ("--array-delimiter=U+001F", "--id-type=string", "--delimiter=,", "--quote=\"")

#: (file stem, label or relationship type, header). The ID spaces (`ID(Entity)`, …) are what lets a
#: relationship name its end nodes by our ids; the property named `id`/`key` is stored as well.
NODE_FILES = (
    ("entities", "Entity", ("id:ID(Entity)", "kb", "name", "name_lc", "aliases:string[]", "aliases_text",
                            "description", "types:string[]", "cvt:boolean")),
    ("values", "Value", ("id:ID(Value)", "value", "datatype")),
    ("name_keys", "NameKey", ("key:ID(NameKey)",)),
    ("meta", "Meta", ("key:ID(Meta)", "value")),
)
RELATIONSHIP_FILES = (
    ("entity_statements", "STATEMENT", (":START_ID(Entity)", ":END_ID(Entity)", "sid", "pid", "label")),
    ("value_statements", "STATEMENT", (":START_ID(Entity)", ":END_ID(Value)", "sid", "pid", "label")),
    ("names", "NAMES", (":START_ID(NameKey)", ":END_ID(Entity)")),
)
ENTITY_COLUMNS = ("id", "kb", "name", "name_lc", "aliases", "aliases_text", "description", "types", "cvt")


class StagingError(ValueError):
    """A record that the CSV files cannot carry faithfully."""


def field_text(value: Any) -> str:
    """One CSV field: absent (None, or an empty list, which the import cannot store) is empty."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        if not value:
            return ""
        for item in value:
            if ARRAY_DELIMITER in item:
                raise StagingError(f"a list element holds U+001F, the CSV list separator: {item!r}")
        value = ARRAY_DELIMITER.join(value)
    return '"' + str(value).replace('"', '""') + '"'


def line(values: Iterable[Any]) -> str:
    return ",".join(field_text(v) for v in values) + "\n"


@dataclass
class CsvFiles:
    """The staged files in `folder`, each opened with its header line; `close()` before importing."""

    folder: Path
    handles: dict[str, IO[str]] = field(default_factory=dict)
    writers: dict[str, Any] = field(default_factory=dict)
    rows: dict[str, int] = field(default_factory=dict)  # rows written per file, header not counted

    @classmethod
    def create(cls, folder: Path) -> "CsvFiles":
        folder.mkdir(parents=True, exist_ok=True)
        files = cls(folder)
        for stem, _, header in NODE_FILES + RELATIONSHIP_FILES:
            handle = (folder / f"{stem}.csv").open("w", encoding="utf-8", newline="")
            handle.write(",".join(header) + "\n")
            files.handles[stem] = handle
        return files

    def write(self, stem: str, rows: Iterable[Iterable[Any]]) -> None:
        """Rows whose fields may be absent, lists or booleans (entities)."""
        self.handles[stem].writelines(self._counted(stem, (line(row) for row in rows)))

    def write_strings(self, stem: str, rows: Iterable[Iterable[str]]) -> None:
        """Rows of strings only (values, statements, names, keys, Meta): the stdlib's C writer with every
        field quoted encodes them as `field_text` does, at a fraction of its cost."""
        if stem not in self.writers:
            self.writers[stem] = csv.writer(self.handles[stem], quoting=csv.QUOTE_ALL, lineterminator="\n")
        self.writers[stem].writerows(self._counted(stem, rows))

    def _counted(self, stem: str, rows: Iterable[Any]) -> Iterator[Any]:
        n = 0
        for n, row in enumerate(rows, 1):
            yield row
        self.rows[stem] = self.rows.get(stem, 0) + n

    def close(self) -> None:
        for handle in self.handles.values():
            handle.close()

    def spans_lines(self, stem: str) -> bool:
        """Whether some field of a closed file holds a line break: a carriage return anywhere, or more
        newlines than rows (every row ends in one). `neo4j-admin` reads files whose fields may span
        lines more slowly (`--multiline-fields=true`: at 10M statements 41.3–45.8 s against
        38.0–39.0 s), and Wikidata's terms and values hold no line breaks; reading the files back
        for this took 0.6 s at 10M statements."""
        newlines, block = 0, 1 << 24
        with (self.folder / f"{stem}.csv").open("rb") as handle:
            while chunk := handle.read(block):
                if b"\r" in chunk:
                    return True
                newlines += chunk.count(b"\n")
        return newlines != self.rows.get(stem, 0) + 1

    def admin_arguments(self) -> list[str]:
        """`--nodes=Label=file` / `--relationships=TYPE=file` for every staged file."""
        args = [f"--nodes={label}={self.folder / (stem + '.csv')}" for stem, label, _ in NODE_FILES]
        args += [f"--relationships={kind}={self.folder / (stem + '.csv')}" for stem, kind, _ in RELATIONSHIP_FILES]
        multiline = any(self.spans_lines(stem) for stem, _, _ in NODE_FILES + RELATIONSHIP_FILES)
        return args + [f"--multiline-fields={'true' if multiline else 'false'}", *ADMIN_OPTIONS]
