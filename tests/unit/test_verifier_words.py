"""The verifier's words are data (issue 45): no word table in the code of `kalma_graph/verification`, and every
data file the verifier reads is hashed into its id, so that a changed word is another verifier by itself."""

from __future__ import annotations

import ast
import gzip
import json
import shutil
from importlib import resources
from pathlib import Path

import pytest

from kalma_graph import verification
from kalma_graph.verification import AnswerInput, CitedTriple, GraphEntity, GraphTriple, Verifier
from kalma_graph.verification.lexicon import DATA_FILES, LexiconError, load_lexicon, read_lexicon
from kalma_graph.verification.verifier import VERIFIER_VERSION

PACKAGE = Path(verification.__file__).parent
DATA = resources.files("kalma_graph").joinpath("data")

# Module-level collections of strings that are not English words the checks read: names of outcomes, statuses
# and record kinds, file names, exports. Anything else belongs in kalma_graph/data/verifier_words.json.
NOT_WORDS = {
    ("__init__.py", "__all__"),  # exported names
    ("records.py", "Verdict"),  # verdict names (the Literal type and its values)
    ("records.py", "VERDICTS"),
    ("records.py", "ClaimStatus"),  # claim status names (the Literal type and its values)
    ("records.py", "CLAIM_STATUSES"),
    ("records.py", "FACT_KINDS"),  # claim kinds
    ("structure.py", "SCORE"),  # outcome name -> score
    ("lexicon.py", "DATA_FILES"),  # the data files the verifier reads
    # topics.py reads questions for the grounded plan (its words: data/question_topics.json); its clause cues
    # are still code, left to the module's owner (issue 43)
    ("topics.py", "_WHO_CUES"),
}


def _string_table(value: ast.AST) -> bool:
    """A collection of 3 or more string literals anywhere in `value`: a tuple, list, set or dict (keys or
    values) of them, or `"a b c".split()`."""
    for node in ast.walk(value):
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            items = node.elts
        elif isinstance(node, ast.Dict):
            if sum(isinstance(k, ast.Constant) and isinstance(k.value, str) for k in node.keys) >= 3 or \
                    sum(isinstance(v, ast.Constant) and isinstance(v.value, str) for v in node.values) >= 3:
                return True
            continue
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "split" \
                and isinstance(node.func.value, ast.Constant) and isinstance(node.func.value.value, str):
            if len(node.func.value.value.split()) >= 3:
                return True
            continue
        else:
            continue
        if sum(isinstance(i, ast.Constant) and isinstance(i.value, str) for i in items) >= 3:
            return True
    return False


def _module_tables(path: Path) -> list[str]:
    out = []
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        names = [t.id for t in targets if isinstance(t, ast.Name)]
        if _string_table(value) and not all((path.name, n) in NOT_WORDS for n in names):
            out.append(f"{path.name}:{node.lineno} {', '.join(names)}")
    return out


def test_no_module_of_the_verifier_keeps_a_word_table_in_code():
    found = [t for path in sorted(PACKAGE.glob("*.py")) for t in _module_tables(path)]
    assert found == [], "word tables belong in kalma_graph/data/verifier_words.json (read through load_lexicon): " \
                        + "; ".join(found)


def test_the_scan_sees_the_ways_a_table_is_written(tmp_path):
    """The AST scan itself: each way a word table was written in these modules is caught."""
    source = tmp_path / "words.py"
    source.write_text('A = frozenset("he she his her".split())\nB = {"a", "an", "the"}\nC = ("of", "in", "at")\n'
                      'D = {"citizen": "x", "speaker": "y", "descent": "z"}\nE = frozenset(["and", "&", ","])\n'
                      'F: tuple[str, ...] = ("x", "y", "z")\nOK = ("a", "b")\nN = 3\n', encoding="utf-8")
    assert [t.split()[1] for t in _module_tables(source)] == ["A", "B", "C", "D", "E", "F"]


def test_every_word_table_has_its_line_in_about():
    data = json.loads(DATA.joinpath("verifier_words.json").read_text(encoding="utf-8"))
    keys = [k for k in data if k not in ("version", "about")]
    described = [line.split("`")[1] for line in data["about"][1:]]
    assert described == keys


def test_the_data_file_keeps_its_format():
    raw = DATA.joinpath("verifier_words.json").read_text(encoding="utf-8")
    assert raw == json.dumps(json.loads(raw), indent=1, ensure_ascii=False) + "\n"


def _copy(tmp_path: Path) -> Path:
    for name in DATA_FILES:
        shutil.copyfile(str(DATA.joinpath(name)), tmp_path / name)
    return tmp_path


def _edit_json(path: Path, change) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def _edit_aliases(path: Path) -> None:
    lines = gzip.decompress(path.read_bytes()).decode("utf-8").splitlines()
    lines[1] += "|another alias"
    path.write_bytes(gzip.compress(("\n".join(lines) + "\n").encode("utf-8")))


EDITS = {
    "verifier_words.json": lambda p: _edit_json(p, lambda d: d["copulas"].append("seemed")),
    "relation_cues.json": lambda p: _edit_json(p, lambda d: d["person_words"].append("soul")),
    "wikidata_properties.tsv.gz": _edit_aliases,
    "question_topics.json": lambda p: _edit_json(p, lambda d: d["verbs"].append("strolled")),
}


def test_a_copy_of_the_data_is_the_same_verifier(tmp_path):
    copy = read_lexicon(_copy(tmp_path))
    assert Verifier(lexicon=copy).id() == Verifier().id() == f"{VERIFIER_VERSION}:{load_lexicon().sha256}"
    assert Verifier(lexicon=copy).describe() == Verifier().describe()
    assert set(Verifier().describe()["data"]) == set(DATA_FILES)


@pytest.mark.parametrize("name", DATA_FILES)
def test_a_changed_word_changes_the_verifier_id_without_a_version_bump(tmp_path, name):
    assert set(EDITS) == set(DATA_FILES)  # every file the verifier reads is tried
    folder = _copy(tmp_path)
    EDITS[name](folder / name)
    changed = Verifier(lexicon=read_lexicon(folder))
    version, _, digest = changed.id().partition(":")
    assert version == VERIFIER_VERSION
    assert changed.id() != Verifier().id()
    assert changed.describe()["cues_sha256"] == digest != Verifier().describe()["cues_sha256"]
    assert [n for n in DATA_FILES if changed.describe()["data"][n] != Verifier().describe()["data"][n]] == [name]


def test_the_checks_read_their_words_from_the_lexicon_they_are_given(tmp_path):
    """A word table changed in the data changes the verdict (here: which values of `instance of` mean a person)."""
    answer = AnswerInput(sentences=[("Kim Jong-il was a North Korean leader.",
                                     [CitedTriple(subject="Q10665", relation="instance of", value="human")])],
                         shown=[GraphTriple(subject="Q10665", label="instance of", value="human", object_id="Q5")],
                         entities=[GraphEntity(id="Q10665", name="Kim Jong-il")])
    assert Verifier().verify(answer).citations[0].outcome == "unsupported_person"
    folder = _copy(tmp_path)
    _edit_json(folder / "verifier_words.json", lambda d: d["human_values"].remove("human"))
    assert Verifier(lexicon=read_lexicon(folder)).verify(answer).citations[0].outcome == "unsupported_absent"


def test_a_table_no_code_reads_is_an_error(tmp_path):
    folder = _copy(tmp_path)
    _edit_json(folder / "verifier_words.json", lambda d: d.update(copulae=["is"]))
    with pytest.raises(LexiconError, match="copulae"):
        read_lexicon(folder)
    _edit_json(folder / "verifier_words.json", lambda d: (d.pop("copulae"), d.pop("copulas")))
    with pytest.raises(LexiconError, match="copulas"):
        read_lexicon(folder)
