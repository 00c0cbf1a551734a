"""The load planner (`store/loading.py`) and the records it plans from, without a store: ids that
stores already hold must never change, and the statement rows it hands to each engine (columns
for the embedded store's Arrow tables and the CSV of `neo4j import`, dicts for Neo4j's UNWIND)
must be the same rows."""

from __future__ import annotations

import pytest

from kalma_graph.store.base import EntityRecord, StatementRecord
from kalma_graph.store.loading import StatementRows, StoreHolds, merge_records, plan_batch

BIRTH_PLACE = StatementRecord("Q206534", "P19", "place of birth", object_id="Q25395")
BIRTH_DATE = StatementRecord("Q206534", "P569", "date of birth", value="1871-11-01", datatype="time")


def test_statement_and_value_ids_are_the_ones_stores_already_hold():
    # Changing the digest would make every store ingested before see each fact as new: a re-ingest
    # would double every statement. These are the ids of the first released version.
    assert BIRTH_PLACE.object_key == "Q25395"
    assert BIRTH_PLACE.sid == "95faa0aabad1992ed774"
    assert BIRTH_DATE.object_key == "v:ac3552004f3adbc6d5c2"
    assert BIRTH_DATE.sid == "48caeb6082936d85d39b"


def test_records_are_values():
    again = StatementRecord("Q206534", "P19", "place of birth", object_id="Q25395")
    assert again == BIRTH_PLACE and hash(again) == hash(BIRTH_PLACE) and again.sid == BIRTH_PLACE.sid
    assert again != StatementRecord("Q206534", "P19", "place of birth", object_id="Q1")
    assert EntityRecord("Q1", "wikidata", name="One") == EntityRecord(id="Q1", kb="wikidata", name="One")
    with pytest.raises(AttributeError):
        BIRTH_PLACE.pid = "P20"  # type: ignore[misc]


def _plan(statements, *, existing_sids=(), existing_value_ids=()):
    holds = StoreHolds({}, set(existing_value_ids), set(), set(), set(existing_sids))
    return plan_batch([EntityRecord("Q206534", "wikidata", name="Stephen Crane")], statements, default_kb="wikidata",
                      holds=holds)


def test_statement_rows_are_planned_once_each_and_read_alike_as_columns_dicts_and_tuples():
    same_date_elsewhere = StatementRecord("Q25395", "P571", "inception", value="1871-11-01", datatype="time")
    plan = _plan([BIRTH_PLACE, BIRTH_DATE, BIRTH_PLACE, same_date_elsewhere])
    assert plan.entity_statements_new.rows() == [
        {"subject": "Q206534", "object": "Q25395", "sid": BIRTH_PLACE.sid, "pid": "P19", "label": "place of birth"}]
    assert list(plan.value_statements_new.tuples()) == [
        ("Q206534", BIRTH_DATE.object_key, BIRTH_DATE.sid, "P569", "date of birth"),
        ("Q25395", BIRTH_DATE.object_key, same_date_elsewhere.sid, "P571", "inception")]
    assert plan.value_statements_new.columns() == tuple(
        [row[c] for row in plan.value_statements_new.rows()] for c in StatementRows.COLUMNS)
    # one Value node for the date both statements reach
    assert plan.values_new == [{"id": BIRTH_DATE.object_key, "value": "1871-11-01", "datatype": "time"}]
    assert (len(plan.entity_statements_new), len(plan.value_statements_new)) == (1, 2)
    assert sorted(r["id"] for r in plan.entities_new) == ["Q206534", "Q25395"]  # the object as a stub


def test_what_the_store_holds_is_not_planned_again():
    plan = _plan([BIRTH_PLACE, BIRTH_DATE], existing_sids={BIRTH_PLACE.sid}, existing_value_ids={BIRTH_DATE.object_key})
    assert len(plan.entity_statements_new) == 0 and not plan.entity_statements_new.rows()
    assert plan.values_new == [] and plan.value_statements_new.sid == [BIRTH_DATE.sid]


# merge_records' rules (module docstring of store/loading.py), as a truth table. One record takes a
# shorter path than several: both must give what the rules say.
CRANE = EntityRecord("Q206534", "wikidata", name="Stephen Crane", aliases=("Crane", "", "Stephen Crane"),
                     description="American writer", types=("Q5", ""))
MERGE_CASES = [
    ("one record: empty and name-equal aliases dropped, empty types dropped",
     [CRANE], EntityRecord("Q206534", "wikidata", name="Stephen Crane", aliases=("Crane",),
                           description="American writer", types=("Q5",))),
    ("one bare stub", [EntityRecord("Q1", "")], EntityRecord("Q1", "")),
    ("one record with an empty name keeps it and drops no alias for it",
     [EntityRecord("Q1", "wikidata", name="", aliases=("b", "a", "b"))],
     EntityRecord("Q1", "wikidata", name="", aliases=("a", "b"))),
    ("a stub and the record: the record's fields",
     [EntityRecord("Q206534", "wikidata"), CRANE],
     EntityRecord("Q206534", "wikidata", name="Stephen Crane", aliases=("Crane",), description="American writer",
                  types=("Q5",))),
    ("the first non-empty name, kb and description win; aliases and types are unions; cvt if any",
     [EntityRecord("m.1", "", name=None, aliases=("x",), types=("t2",)),
      EntityRecord("m.1", "freebase", name="First", description="d1", types=("t1",), cvt=True),
      EntityRecord("m.1", "wikidata", name="Second", aliases=("First", "y"), description="d2")],
     EntityRecord("m.1", "freebase", name="First", aliases=("x", "y"), description="d1", types=("t1", "t2"), cvt=True)),
]


@pytest.mark.parametrize(("records", "merged"), [c[1:] for c in MERGE_CASES], ids=[c[0] for c in MERGE_CASES])
def test_merge_records(records, merged):
    assert merge_records(records) == merged
    # the single-record path gives what the general path gives for the same record twice
    assert merge_records(records[:1]) == merge_records(records[:1] * 2)


@pytest.mark.parametrize(("stored_kb", "changed"), [("wikidata", []), ("", ["Q25395"]), (None, ["Q25395"])],
                         ids=["known kb: nothing to write", "empty kb: the stub fills it", "no kb: the stub fills it"])
def test_an_object_met_again_changes_its_entity_only_where_a_stub_adds_something(stored_kb, changed):
    """A statement's object that the store holds already is planned as a stub merged into it: that adds
    nothing but the kb, when the stored entity has none (the first non-empty kb wins)."""
    from kalma_graph.kg.triples import Entity

    stored = Entity("Q25395", kb=stored_kb, name="Newark", types=("Q515",))
    holds = StoreHolds({"Q25395": stored}, set(), set(), set(), set())
    plan = plan_batch([], [BIRTH_PLACE], default_kb="wikidata", holds=holds)
    assert [r["id"] for r in plan.entities_changed] == changed
    assert [r["id"] for r in plan.entities_new] == ["Q206534"]  # the subject, new, as a stub
    if changed:
        assert plan.entities_changed[0] | {"kb": None} == {
            "id": "Q25395", "kb": None, "name": "Newark", "name_lc": "newark", "aliases": [], "aliases_text": None,
            "description": None, "types": ["Q515"], "cvt": False}
        assert plan.entities_changed[0]["kb"] == "wikidata"
    assert plan.entity_statements_new.sid == [BIRTH_PLACE.sid]
