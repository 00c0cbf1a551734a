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

from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Sequence

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


def field_value(value: Any) -> str | None:
    """What one CSV field holds, before quoting; None (an empty, unquoted field) for an absent value:
    None, or an empty list, which the import cannot store. Booleans are `true`/`false`, which
    `neo4j-admin` reads as booleans quoted or not; a list is its elements joined by U+001F."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        if not value:
            return None
        for item in value:
            if ARRAY_DELIMITER in item:
                raise StagingError(f"a list element holds U+001F, the CSV list separator: {item!r}")
        return ARRAY_DELIMITER.join(value)
    return str(value)


#: Entity columns whose values `field_value` converts (lists, the boolean); the others are strings or None.
_CONVERTED_COLUMNS = frozenset({"aliases", "types", "cvt"})


def entity_columns(rows: Sequence[dict[str, Any]]) -> list[list[str | None]]:
    """`ENTITY_COLUMNS` of entity rows (`loading.entity_row`), as `CsvFiles.write_columns` takes them."""
    return [[field_value(r[c]) for r in rows] if c in _CONVERTED_COLUMNS else [r[c] for r in rows]
            for c in ENTITY_COLUMNS]


@dataclass
class CsvFiles:
    """The staged files in `folder`, each opened with its header line; `close()` before importing."""

    folder: Path
    handles: dict[str, IO[bytes]] = field(default_factory=dict)
    rows: dict[str, int] = field(default_factory=dict)  # rows written per file, header not counted

    @classmethod
    def create(cls, folder: Path) -> "CsvFiles":
        folder.mkdir(parents=True, exist_ok=True)
        files = cls(folder)
        for stem, _, header in NODE_FILES + RELATIONSHIP_FILES:
            handle = (folder / f"{stem}.csv").open("wb")
            handle.write((",".join(header) + "\n").encode("utf-8"))
            files.handles[stem] = handle
        return files

    def write_columns(self, stem: str, columns: Sequence[Sequence[str | None]]) -> None:
        """Rows given as columns of strings or None (a load plan's statement rows are columns already;
        entities: `entity_columns`): Arrow's C++ CSV writer quotes every string (a quote doubled
        inside) and leaves None empty, the encoding of the module docstring (its reference,
        `field_text`, is in tests/e2e/test_neo4j_import.py), in a fraction of the stdlib writer's time
        (1M statement rows: 0.58 s against 0.97 s, the same bytes)."""
        import pyarrow as pa
        import pyarrow.csv as pa_csv

        n = len(columns[0]) if columns else 0
        if n == 0:
            return
        table = pa.Table.from_arrays([pa.array(c, pa.string()) for c in columns],
                                     names=[str(i) for i in range(len(columns))])
        options = pa_csv.WriteOptions(include_header=False, quoting_style="all_valid")
        pa_csv.write_csv(table, self.handles[stem], options)
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
