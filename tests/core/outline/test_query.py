"""The agent's queries: a file's or folder's outline, and finding a definition by name."""

from __future__ import annotations

from pathlib import Path

import pytest

from ljtui.core.outline import MAX_MATCHES, MAX_OUTLINE_SYMBOLS, find_symbol, outline
from tests.core.outline.conftest import write


def test_find_symbol_exact_qualified_name(langs: Path) -> None:
    found = find_symbol(langs, "Uploader.send")
    assert [(m.symbol.path, m.symbol.line, m.how) for m in found.matches] == [
        ("Sample.java", 14, "exact"), ("sample.py", 32, "exact")]
    assert found.text.splitlines()[0] == ("Sample.java:14 method Uploader.send: "
                                          "public Response send(String url, byte[] data) throws IOException")


def test_find_symbol_by_name_trailing_parts_prefix_and_case(langs: Path) -> None:
    by_name = find_symbol(langs, "attempts")
    assert [(m.symbol.qualname, m.how) for m in by_name.matches] == [
        ("Uploader.Retry.attempts", "name"), ("Uploader.Policy.attempts", "name")]
    assert [m.symbol.qualname for m in find_symbol(langs, "Policy.attempts").matches] == ["Uploader.Policy.attempts"]
    members = {m.symbol.qualname for m in find_symbol(langs, "Server.").matches}
    assert members == {"Server.Start", "Server.Addr"}
    prefix = find_symbol(langs, "overl")
    assert {m.how for m in prefix.matches} == {"prefix"} and len(prefix.matches) == 3
    assert [(m.symbol.qualname, m.how) for m in find_symbol(langs, "makeshape").matches] == [
        ("makeShape", "ignoring case")]


def test_find_symbol_orders_exact_before_name_before_prefix(tmp_path: Path) -> None:
    root = write(tmp_path / "r", {"a.py": "def run():\n    pass\n\n\ndef runner():\n    pass\n\n\n"
                                          "class Job:\n    def run(self):\n        pass\n"})
    assert [(m.symbol.qualname, m.how) for m in find_symbol(root, "run").matches] == [
        ("run", "exact"), ("Job.run", "name"), ("runner", "prefix")]


def test_find_symbol_is_bounded(tmp_path: Path) -> None:
    root = write(tmp_path / "r", {"many.py": "".join(f"def handler_{i}():\n    pass\n" for i in range(80))})
    found = find_symbol(root, "handler_")
    assert (len(found.matches), found.total, found.truncated) == (MAX_MATCHES, 80, True)
    assert found.text.endswith("[50 more matches not shown; give a longer or qualified name]")


@pytest.mark.parametrize("bad", [None, 3, "", "  ", "two words", "x" * 500, ["send"]])
def test_find_symbol_refuses_bad_names_gracefully(langs: Path, bad: object) -> None:
    found = find_symbol(langs, bad)
    assert found.error and found.text == found.error and not found.matches


def test_find_symbol_says_when_nothing_matches(langs: Path) -> None:
    found = find_symbol(langs, "NoSuchThing")
    assert not found.error and found.text == "no definition named 'NoSuchThing' (nor one whose name starts with it)"


def test_outline_of_a_file(langs: Path) -> None:
    view = outline(langs, "sample.go")
    assert view.error == "" and view.total == 10 and not view.truncated
    assert view.text.splitlines()[:4] == [
        "sample.go:", "  6: type Server struct", "  10: type Handler interface",
        "    11: Serve(w http.ResponseWriter, r *http.Request) error"]
    assert view.text.endswith("[outline: all 10 definitions in 1 file]")


def test_outline_of_a_folder_lists_its_files_in_path_order(tmp_path: Path) -> None:
    root = write(tmp_path / "r", {"pkg/b.py": "def b():\n    pass\n", "pkg/a.py": "def a():\n    pass\n",
                                  "other/c.py": "def c():\n    pass\n"})
    view = outline(root, "./pkg/")
    assert view.path == "pkg"
    assert [s.path for s in view.symbols] == ["pkg/a.py", "pkg/b.py"]


def test_outline_of_the_repository_is_the_ranked_outline(ranked_repo: Path) -> None:
    view = outline(ranked_repo)
    assert view.path == "" and view.total == 8 and "core/engine.py:" in view.text
    assert len(view.symbols) == 8


def test_outline_is_bounded_by_count_and_budget(tmp_path: Path) -> None:
    root = write(tmp_path / "r", {"big.py": "".join(f"def f{i}():\n    pass\n" for i in range(700))})
    by_count = outline(root, "big.py", budget_tokens=100_000)
    assert len(by_count.symbols) == MAX_OUTLINE_SYMBOLS and by_count.truncated
    by_budget = outline(root, "big.py", budget_tokens=100)
    assert len(by_budget.text) <= 100 * 4 and 0 < len(by_budget.symbols) < 100
    assert "left out" in by_budget.text


@pytest.mark.parametrize(("path", "says"), [
    ("../elsewhere", "outside the repository"), ("/etc", "outside the repository"),
    (42, "must be a string"), ("nothing/here", "no source files at"), ("a\0b", "NUL"),
])
def test_outline_refuses_bad_paths_gracefully(langs: Path, path: object, says: str) -> None:
    view = outline(langs, path)
    assert says in view.error and view.text == view.error and not view.symbols


def test_outline_of_a_secret_file_is_refused(tmp_path: Path) -> None:
    root = write(tmp_path / "r", {"credentials.py": "def token():\n    pass\n"})
    view = outline(root, "credentials.py")
    assert "looks like a secret file" in view.error and "token" not in view.text
