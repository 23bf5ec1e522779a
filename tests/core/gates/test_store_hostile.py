"""Malformed and hostile gate files: each is a GateFileError naming the file and the field, and hides no other gate."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ljtui.core.gates.model import Gate
from ljtui.core.gates.records import GateFileError
from ljtui.core.gates.store import MAX_GATE_FILE_BYTES, GateStore
from tests.core.gates.helpers import FACTORS, HAND_WRITTEN, ITEMS, NOW, gates_dir, write_gate

GOOD = HAND_WRITTEN.format(id="api")


def broken(old: str, new: str) -> str:
    assert old in GOOD, old
    return GOOD.replace(old, new, 1)


CASES = [
    ("bad YAML", broken("title: Change the public API", "title: [unclosed"), "front matter"),
    ("no front matter", GOOD.split("---\n", 2)[2], "front matter"),
    ("front matter not closed", GOOD.replace("\n---\n\nAsk", "\n\nAsk"), "front matter"),
    ("front matter a list", "---\n- a\n---\n## Checklist\n", "front matter"),
    ("YAML alias", broken("title: Change the public API", "title: &t x\nalias: *t"), "front matter"),
    ("missing title", broken("title: Change the public API\n", ""), "title"),
    ("missing factors", GOOD.split("factors:")[0] + "stats:" + GOOD.split("stats:")[1], "factors"),
    ("missing factor", broken("  chain_length: 0.7\n", ""), "factors.chain_length"),
    ("unknown factor", broken("  chain_length: 0.7\n", "  chain_length: 0.7\n  vibes: 1\n"), "factors.vibes"),
    ("score as text", broken("change_surface: 0.6", "change_surface: high"), "factors.change_surface"),
    ("score above 1", broken("cognitive_density: 0.9", "cognitive_density: 1.5"), "factors.cognitive_density"),
    ("score below 0", broken("chain_length: 0.7", "chain_length: -0.1"), "factors.chain_length"),
    ("score NaN", broken("chain_length: 0.7", "chain_length: .nan"), "factors.chain_length"),
    ("score a boolean", broken("chain_length: 0.7", "chain_length: true"), "factors.chain_length"),
    ("flag as number", broken("irreversible: true", "irreversible: 1"), "factors.irreversible"),
    ("flag as text", broken("objectively_verifiable: false", "objectively_verifiable: 'no'"),
     "factors.objectively_verifiable"),
    ("confirmed as text", broken("confirmed_by_user: false", "confirmed_by_user: 'yes'"), "confirmed_by_user"),
    ("level out of range", broken("level: 3", "level: 7"), "level"),
    ("level as text", broken("level: 3", "level: high"), "level"),
    ("negative count", broken("failed: 0", "failed: -1"), "stats.failed"),
    ("counts that do not add up", broken("passed: 0", "passed: 4"), "stats.runs"),
    ("more reworks than passes", broken("reworks: 0", "reworks: 1"), "stats.reworks"),
    ("created not a time", broken("created: '2027-01-15T08:00:00.000Z'", "created: soon"), "created"),
    ("id differs from the file name", broken("id: api", "id: other"), "id"),
    ("id not an id", broken("id: api", "id: ../../etc"), "id"),
    ("title with a line break", broken("title: Change the public API", 'title: "a\\nb"'), "title"),
    ("no checklist", GOOD.split("## Checklist")[0], "checklist"),
    ("empty checklist", broken("- [required] `tests` — Unit tests pass: `pytest -q`\n- [optional]", "<!-- -->"),
     "checklist line 25"),
    ("two checklists", GOOD + "\n## Checklist\n", "checklist"),
    ("duplicate item id", broken("`lint` —", "`tests` —"), "checklist.tests"),
    ("item id not an id", broken("`lint` —", "`Lint Check` —"), "checklist line 26"),
    ("line that is not an item", broken("- [optional]", "- lint: ruff\n- [optional]"), "checklist line 26"),
    ("command not closed", broken("`pytest -q`", "`pytest -q"), "checklist line 25"),
    ("no colon before the command", broken("pass: `pytest -q`", "pass `pytest -q`"), "checklist line 25"),
    ("empty command", broken("`pytest -q`", "`` ` ` ``").replace("`` ` ` ``", "`  `"), "checklist.tests.command"),
    ("NUL in a command", broken("`pytest -q`", "`pytest\x00-q`"), "checklist.tests.command"),
    ("escape in a command", broken("`pytest -q`", "`pytest \x1b[2K-q`"), "checklist.tests.command"),
    ("bidi override in a command", broken("`pytest -q`", "`pytest \u202e-q`"), "checklist.tests.command"),
    ("too many items", broken("## History", "".join(f"- [required] `t{n}` — d: `true`\n" for n in range(21))
                              + "## History"), "checklist"),
    ("history line not a run", GOOD + "- pass\n", "history line"),
    ("evidence before any run", GOOD + "  - `tests` exit 0, duration_ms 1, at 2027-01-15T08:00:00Z\n",
     "history line"),
    ("bad outcome", GOOD + "- `r1` maybe at 2027-01-15T08:00:00Z\n", "history.r1.outcome"),
    ("bad evidence exit", GOOD + "- `r1` pass at 2027-01-15T08:00:00Z\n"
     "  - `tests` exit zero, duration_ms 1, at 2027-01-15T08:00:00Z\n", "history line 30 exit"),
]


@pytest.mark.parametrize(("text", "field"), [pytest.param(t, f, id=name) for name, t, f in CASES])
def test_malformed_file_is_an_error_naming_file_and_field(tmp_path: Path, text: str, field: str) -> None:
    write_gate(tmp_path, "api", text)
    with pytest.raises(GateFileError) as caught:
        GateStore(tmp_path).load("api")
    error = caught.value
    assert error.field.startswith(field), (error.field, error.message)
    assert ".agent/gates/api.md" in error.message and error.field in error.message
    assert error.path == tmp_path / ".agent" / "gates" / "api.md"


def test_the_template_itself_is_fine(tmp_path: Path) -> None:
    write_gate(tmp_path, "api", GOOD)
    assert GateStore(tmp_path).load("api").items == ITEMS


def test_list_returns_the_good_gates_and_the_errors_in_place(tmp_path: Path) -> None:
    write_gate(tmp_path, "alpha")
    write_gate(tmp_path, "beta", broken("change_surface: 0.6", "change_surface: 9").replace("id: api", "id: beta"))
    write_gate(tmp_path, "gamma")
    (gates_dir(tmp_path) / "Not An Id.md").write_text(GOOD, encoding="utf-8")
    (gates_dir(tmp_path) / "notes.txt").write_text("ignored", encoding="utf-8")
    listed = GateStore(tmp_path).list()
    assert [type(x).__name__ for x in listed] == ["GateFileError", "Gate", "GateFileError", "Gate"]
    assert [x.id for x in listed if isinstance(x, Gate)] == ["alpha", "gamma"]
    errors = [x for x in listed if isinstance(x, GateFileError)]
    assert "Not An Id.md" in errors[0].message and errors[0].field == "id"
    assert "beta.md" in errors[1].message and errors[1].field == "factors.change_surface"


def test_a_malformed_file_is_never_overwritten_by_an_outcome(tmp_path: Path) -> None:
    path = write_gate(tmp_path, "api", broken("change_surface: 0.6", "change_surface: 9"))
    before = path.read_bytes()
    from tests.core.gates.helpers import run
    with pytest.raises(GateFileError):
        GateStore(tmp_path).record_outcome("api", run("r1", "pass"))
    assert path.read_bytes() == before


def test_huge_file_is_refused_without_reading_it_whole(tmp_path: Path) -> None:
    write_gate(tmp_path, "api", GOOD + "x" * (MAX_GATE_FILE_BYTES + 10))
    with pytest.raises(GateFileError) as caught:
        GateStore(tmp_path).load("api")
    assert caught.value.field == "file" and "api.md" in caught.value.message


def test_not_utf8_is_refused(tmp_path: Path) -> None:
    (gates_dir(tmp_path) / "api.md").write_bytes(GOOD.encode("utf-8") + b"\xff\xfe")
    with pytest.raises(GateFileError) as caught:
        GateStore(tmp_path).load("api")
    assert caught.value.field == "file" and "UTF-8" in caught.value.message


def test_symlinked_gates_folder_is_refused_for_reading_and_writing(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "api.md").write_text(GOOD, encoding="utf-8")
    repo = tmp_path / "repo"
    (repo / ".agent").mkdir(parents=True)
    os.symlink(outside, repo / ".agent" / "gates")
    store = GateStore(repo)
    listed = store.list()
    assert len(listed) == 1 and isinstance(listed[0], GateFileError)
    assert listed[0].field == "folder" and ".agent/gates" in listed[0].message
    assert "symbolic link" in listed[0].message
    with pytest.raises(GateFileError) as caught:
        store.load("api")
    assert caught.value.field == "folder"
    with pytest.raises(GateFileError):
        store.propose("api", ITEMS, FACTORS, NOW)
    assert os.listdir(outside) == ["api.md"]


def test_symlinked_agent_folder_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    (outside / "gates").mkdir(parents=True)
    repo = tmp_path / "repo"
    repo.mkdir()
    os.symlink(outside, repo / ".agent")
    with pytest.raises(GateFileError) as caught:
        GateStore(repo).propose("api", ITEMS, FACTORS, NOW)
    assert caught.value.field == "folder" and "symbolic link" in caught.value.message
    assert os.listdir(outside / "gates") == []


def test_symlinked_gate_file_is_refused(tmp_path: Path) -> None:
    secret = tmp_path / "secret.md"
    secret.write_text(GOOD, encoding="utf-8")
    repo = tmp_path / "repo"
    os.symlink(secret, gates_dir(repo) / "api.md")
    listed = GateStore(repo).list()
    assert len(listed) == 1 and isinstance(listed[0], GateFileError)
    assert listed[0].field == "file" and "api.md" in listed[0].message and "symbolic link" in listed[0].message


def test_a_gate_file_that_is_a_folder_is_an_error(tmp_path: Path) -> None:
    (gates_dir(tmp_path) / "api.md").mkdir()
    listed = GateStore(tmp_path).list()
    assert len(listed) == 1 and isinstance(listed[0], GateFileError) and listed[0].field == "file"
