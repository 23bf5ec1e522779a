"""The staged change as one EDIT plan: read back by the real parser, applied by the real validator and transaction."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from ljtui.core.edits.apply import apply_plan
from ljtui.core.edits.plan_format import parse_plan
from ljtui.core.edits.validate import validate_plan
from ljtui.core.gates.delivery import delivery_plan
from ljtui.core.gates.workspace import StagedChange, Workspace
from ljtui.core.ports import FixedClock
from tests.core.edits.helpers import id_factory

EXAMPLES = 300

LINES = ["x = 1", "x = 1", "def f():", "    return 2", "", "```", "````py", "# EDIT", "### EDIT 9", "- file: `a`",
         "é ✓", "\t", "  ```old", "```json", "}", "~~~"]
ENDS = ["\n", "\n", "\n", "\r\n", "\r"]


@st.composite
def texts(draw: st.DrawFn) -> str:
    """A text file: lines from a small, repetitive vocabulary (CRLF, CR, fences, headings), any final break."""
    body = draw(st.lists(st.tuples(st.one_of(st.sampled_from(LINES), st.text(max_size=6)), st.sampled_from(ENDS)),
                         max_size=12))
    text = "".join(line + end for line, end in body)
    if body and draw(st.booleans()):
        text = text[:-len(body[-1][1])]
    return text.replace("\0", "")


@st.composite
def edited(draw: st.DrawFn) -> tuple[str, str]:
    """A text and an edit of it: lines replaced, inserted, removed, or a wholly new text."""
    before = draw(texts())
    if draw(st.integers(0, 4)) == 0:
        return before, draw(texts())
    lines = before.splitlines(keepends=True)
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(lines)))
        action = draw(st.sampled_from(["insert", "delete", "replace"]))
        new = draw(st.sampled_from(LINES)) + draw(st.sampled_from(ENDS))
        if action == "insert" or not lines:
            lines.insert(at, new)
        elif action == "delete":
            del lines[min(at, len(lines) - 1)]
        else:
            lines[min(at, len(lines) - 1)] = new
    return before, "".join(lines)


def apply_in_memory(text: str, files: dict[str, bytes], root: Path) -> dict[str, bytes | None]:
    """The plan parsed and validated by the real code against ``files``; the bytes it would write."""
    plan = parse_plan(text)
    report = validate_plan(plan, root, reader=lambda path: files.get(path.relative_to(root).as_posix()))
    assert report.ok, report.errors
    return {key: change.after for key, change in report.changes.items()}


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(edited(), texts())
def test_a_plan_reproduces_the_staged_bytes_exactly(tmp_path: Path, pair: tuple[str, str], created: str) -> None:
    before, after = (part.encode() for part in pair)
    assume(before != after)
    changes = [StagedChange("src/mod.py", before, after), StagedChange("new/file.txt", None, created.encode())]
    delivery = delivery_plan(changes)
    carried = {path: data for path, data in (("src/mod.py", after), ("new/file.txt", created.encode()))
               if path in delivery.files}
    skipped = dict(delivery.skipped)
    assert set(carried) | set(skipped) == {"src/mod.py", "new/file.txt"} and not set(carried) & set(skipped)
    if "src/mod.py" in skipped:
        assert (not before and after) or (not after.endswith((b"\n", b"\r")) and before.endswith((b"\n", b"\r"))), \
            skipped["src/mod.py"]
    if "new/file.txt" in skipped:
        assert not created.endswith(("\n", "\r")), skipped["new/file.txt"]
    if carried:
        written = apply_in_memory(delivery.text, {"src/mod.py": before}, tmp_path)
        assert {k: v for k, v in written.items()} == {k: v for k, v in carried.items() if k in written}
        assert all(carried[k] == before for k in carried if k not in written)


def test_one_block_per_hunk_with_the_declarations_block_last() -> None:
    before = "".join(f"line {n}\n" for n in range(1, 41))
    after = before.replace("line 3\n", "line three\n").replace("line 30\n", "line thirty\n")
    delivery = delivery_plan([StagedChange("a.txt", before.encode(), after.encode())])
    plan = parse_plan(delivery.text)
    assert [(b.number, b.old, b.new) for b in plan.blocks] == [
        (1, "line 3\n", "line three\n"), (2, "line 30\n", "line thirty\n")]
    assert plan.declarations.present and plan.declarations.to_dict() == {
        "will_modify": [], "will_add": [], "will_remove": []}
    assert delivery.text.endswith("```json\n" + json.dumps(plan.declarations.to_dict()) + "\n```\n")


def test_hunks_whose_contexts_overlap_are_merged() -> None:
    before = "head\n" + "x\n" * 6 + "tail\n"
    after = "head\n" + "x\ny\nx\ny\nx\nx\n" + "tail\n"
    delivery = delivery_plan([StagedChange("a.txt", before.encode(), after.encode())])
    (block,) = parse_plan(delivery.text).blocks
    assert block.old.startswith("head\n")
    assert apply_in_memory(delivery.text, {"a.txt": before.encode()}, Path("/nonexistent-root")) == {
        "a.txt": after.encode()}


def test_repeated_lines_get_context_until_the_anchor_is_unique() -> None:
    before = "a\nx\nb\nx\nc\n"
    plan = parse_plan(delivery_plan([StagedChange("a.txt", before.encode(), b"a\nx\nb\ny\nc\n")]).text)
    (block,) = plan.blocks
    assert block.old in ("b\nx\n", "x\nc\n") and block.hint_line in (3, 4)


def test_fences_outgrow_backticks_and_paths_read_back() -> None:
    content = "```\n````python\nx\n````\n"
    delivery = delivery_plan([StagedChange("docs/`odd` name.md", None, content.encode())])
    assert "`````new\n" in delivery.text
    (block,) = parse_plan(delivery.text).blocks
    assert (block.file, block.old, block.new) == ("docs/`odd` name.md", "", content)


def test_what_the_format_cannot_carry_is_skipped_with_a_reason() -> None:
    delivery = delivery_plan([
        StagedChange("gone.py", b"x\n", None),
        StagedChange("image.png", None, b"\x89PNG\r\n\x1a\n\0\0"),
        StagedChange("latin1.txt", b"caf\xe9\n", b"cafe\n"),
        StagedChange("link", None, None, reason="a symbolic link changed; an EDIT plan carries text only"),
        StagedChange("no-eol.txt", None, b"last line"),
        StagedChange("was-empty.txt", b"", b"text\n"),
        StagedChange("lost-eol.txt", b"a\n", b"a"),
        StagedChange(".git/config", b"a\n", b"b\n"),
        StagedChange("ok.py", b"a = 1\n", b"a = 2\n", note="it is executable in staging"),
    ])
    reasons = dict(delivery.skipped)
    assert delivery.files == ("ok.py",) and delivery.notes == (("ok.py", "it is executable in staging"),)
    assert "cannot remove a file" in reasons["gone.py"]
    assert "binary or not UTF-8" in reasons["image.png"] and "binary or not UTF-8" in reasons["latin1.txt"]
    assert "symbolic link" in reasons["link"]
    assert "no line break" in reasons["no-eol.txt"] and "empty file" in reasons["was-empty.txt"]
    assert "final line break" in reasons["lost-eol.txt"] and ".git" in reasons[".git/config"]
    assert len(reasons) == 8


def test_nothing_to_deliver_is_an_empty_plan() -> None:
    delivery = delivery_plan([StagedChange("gone.py", b"x\n", None)])
    assert delivery.text == "" and delivery.files == () and delivery.skipped[0][0] == "gone.py"


def test_a_staged_run_is_delivered_through_the_real_transaction(git_repo: Path) -> None:
    (git_repo / "crlf.txt").write_bytes(b"one\r\ntwo\r\nthree")
    space = Workspace.create(git_repo, "run-1")
    (space.tree / "app.py").write_text("def greet(name):\n    return f'hello {name}'\n\n\nX = 1\n",
                                       encoding="utf-8")
    (space.tree / "crlf.txt").write_bytes(b"one\r\n2\r\nthree\r\nfour")
    (space.tree / "pkg").mkdir()
    (space.tree / "pkg" / "__init__.py").write_text("", encoding="utf-8")
    (space.tree / "README.md").unlink()
    delivery = delivery_plan(space.changes())
    assert delivery.files == ("app.py", "crlf.txt", "pkg/__init__.py")
    assert [path for path, _ in delivery.skipped] == ["README.md"]
    report = apply_plan(parse_plan(delivery.text), git_repo, clock=FixedClock(), new_id=id_factory(),
                        run_checks=False)
    assert report.result.exit_code == 0, json.dumps(report.result.to_dict())
    assert sorted(report.result.files) == list(delivery.files)
    for path in delivery.files:
        assert (git_repo / path).read_bytes() == (space.tree / path).read_bytes()
    assert (git_repo / "README.md").exists()
    assert [c.path for c in space.changes()] == ["README.md"]
