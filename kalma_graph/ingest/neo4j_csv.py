"""The graph model as CSV files for `neo4j-admin database import full`: one place for the headers.

The columns are the properties the Neo4j engine writes (`store/loading.py` `entity_row`, and the
`create_*.neo4j.cypher` statements): `Entity {id, kb, name, name_lc, aliases, aliases_text,
description, types, cvt}`, `Value {id, value, datatype}`, `NameKey {key}`, `Meta {key, value}`,
`(:Entity)-[:STATEMENT {sid, pid, label}]->(:Entity|:Value)` and `(:NameKey)-[:NAMES]->(:Entity)`.

Every value is quoted (a quote doubled inside), so an empty string stays an empty string and only
an absent property is an empty field — as the engine stores no null property. Lists use U+001F (the
ASCII unit separator) between elements: any printable character can occur in an alias.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Sequence

from kalma_graph.errors import BadInputError

ARRAY_DELIMITER = "\x1f"
#: How `neo4j-admin` must read these files (the options that match the encoding below). Whether a
#: field may span lines is decided per import (`CsvFiles.admin_arguments`).
ADMIN_OPTIONS = ("--array-delimiter=U+001F", "--id-type=integer", "--delimiter=,", "--quote=\"")

#: (file stem, label or relationship type, header). Each node file opens with its node's number in
#: an integer ID space (`:ID(Entity)`, …; staging numbers the nodes as it first meets them) through
#: which a relationship names its end nodes; our own ids (`id`, `key`) are ordinary properties.
#: `neo4j-admin` maps integers far faster than strings: 10M statements imported in 37.1 s against
#: 52.6 s with `--id-type=string` and the ids themselves as the ID columns (1M: 9.5–10.1 s against
#: 11.3–13.2 s), the same files otherwise.
NODE_FILES = (
    ("entities", "Entity", (":ID(Entity)", "id", "kb", "name", "name_lc", "aliases:string[]", "aliases_text",
                            "description", "types:string[]", "cvt:boolean")),
    ("values", "Value", (":ID(Value)", "id", "value", "datatype")),
    ("name_keys", "NameKey", (":ID(NameKey)", "key")),
    ("meta", "Meta", (":ID(Meta)", "key", "value")),
)
RELATIONSHIP_FILES = (
    ("entity_statements", "STATEMENT", (":START_ID(Entity)", ":END_ID(Entity)", "sid", "pid", "label")),
    ("value_statements", "STATEMENT", (":START_ID(Entity)", ":END_ID(Value)", "sid", "pid", "label")),
    ("names", "NAMES", (":START_ID(NameKey)", ":END_ID(Entity)")),
)
#: Header fields whose column holds node numbers.
NUMBER_COLUMNS = (":ID(", ":START_ID(", ":END_ID(")
_HEADERS = {stem: header for stem, _, header in NODE_FILES + RELATIONSHIP_FILES}
#: The entity file's columns after its number.
ENTITY_COLUMNS = ("id", "kb", "name", "name_lc", "aliases", "aliases_text", "description", "types", "cvt")


class StagingError(BadInputError, ValueError):
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

    def write_columns(self, stem: str, columns: Sequence[Sequence[int | str | None]]) -> None:
        """Rows given as columns in the order of the file's header: the node numbers of its ID columns
        (`:ID`, `:START_ID`, `:END_ID`) as ints, the other fields as strings or None (a load plan's
        statement rows are columns already; entities: `entity_columns`). Arrow's C++ CSV writer
        quotes every value (a quote doubled inside) and leaves None empty, the encoding of the module
        docstring (its reference, `field_text`, is in tests/e2e/test_neo4j_import.py), in a fraction
        of the stdlib writer's time (1M statement rows: 0.58 s against 0.97 s, the same bytes)."""
        import pyarrow as pa
        import pyarrow.csv as pa_csv

        n = len(columns[0]) if columns else 0
        if n == 0:
            return
        header = _HEADERS[stem]
        if len(columns) != len(header):
            raise ValueError(f"{stem}.csv has {len(header)} columns, {len(columns)} given")
        arrays = [pa.array(c, pa.int64() if h.startswith(NUMBER_COLUMNS) else pa.string())
                  for c, h in zip(columns, header)]
        table = pa.Table.from_arrays(arrays, names=[str(i) for i in range(len(columns))])
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
