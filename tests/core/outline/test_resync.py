"""PLN-13 resync: a real plan applied by the patcher, then the outline refreshed where it declared."""

from __future__ import annotations

import json
from pathlib import Path

from ljtui.core.edits.plan_format import parse_plan
from ljtui.core.outline import build_index, resync
from ljtui.core.outline.cache import CACHE_DIR, ENTRIES_FILE
from ljtui.core.statedir import AGENT_DIR
from tests.core.edits.helpers import apply_text, block, plan_text
from tests.core.outline.conftest import write

UPLOAD = (
    "class Uploader:\n"
    "    def send(self, url, data):\n"
    "        return self.client.put(url, data)\n"
    "\n"
    "    def close(self):\n"
    "        self.client = None\n"
    "\n"
    "    def legacy(self):\n"
    "        return 'old'\n"
)
NOTES = "def unrelated():\n    return 1\n"


def repo(tmp_path: Path) -> Path:
    root = write(tmp_path / "r", {"src/upload.py": UPLOAD, "src/notes.py": NOTES,
                                  "src/other.py": "def o():\n    pass\n"})
    build_index(root, workers=1)
    return root


def declaration(modify: list[str], add: list[str], remove: list[str]) -> str:
    data = {"will_modify": modify, "will_add": add, "will_remove": remove}
    return f"```json\n{json.dumps(data)}\n```\n"


def cached_paths(root: Path) -> dict[str, list]:
    data = json.loads((root / AGENT_DIR / CACHE_DIR / ENTRIES_FILE).read_text())
    return {entry[0]: entry for entry in data["entries"]}


PLAN_BLOCKS = (
    block(1, "src/upload.py", "        return self.client.put(url, data)\n",
          "        return self._retry(lambda: self.client.put(url, data))\n"),
    block(2, "src/upload.py", "    def legacy(self):\n        return 'old'\n",
          "    def _retry(self, call):\n        return call()\n"),
)


def test_declarations_lived_up_to_report_nothing(tmp_path: Path) -> None:
    root = repo(tmp_path)
    text = plan_text(*PLAN_BLOCKS, declaration=declaration(["Uploader.send"], ["Uploader._retry"],
                                                           ["Uploader.legacy"]))
    result = apply_text(text, root, run_checks=False).result
    assert result.status == "done"
    report = resync(root, parse_plan(text).declarations, result.files)
    assert report.ok and report.issues == ()
    assert report.reindexed == ("src/upload.py",)
    assert "Every declared symbol was touched as declared." in report.text
    assert [s.qualname for s in report.index.files["src/upload.py"].symbols] == [
        "Uploader", "Uploader.send", "Uploader.close", "Uploader._retry"]


def test_a_declared_symbol_the_apply_did_not_touch_is_reported(tmp_path: Path) -> None:
    root = repo(tmp_path)
    text = plan_text(*PLAN_BLOCKS, declaration=declaration(
        ["Uploader.send", "Uploader.close", "unrelated", "Ghost.method", "Uploader._retry"],
        ["Uploader._retry", "Uploader.send"],
        ["Uploader.legacy", "Uploader.close"]))
    result = apply_text(text, root, run_checks=False).result
    report = resync(root, parse_plan(text).declarations, result.files)
    issues = [(issue.key, issue.name) for issue in report.issues]
    assert issues == [("will_modify", "Uploader.close"), ("will_modify", "unrelated"),
                      ("will_modify", "Ghost.method"), ("will_modify", "Uploader._retry"),
                      ("will_add", "Uploader.send"), ("will_remove", "Uploader.close")]
    problems = {(issue.key, issue.name): issue.problem for issue in report.issues}
    assert problems[("will_modify", "Uploader._retry")] == (
        "declared modified, but it did not exist before the apply (it was added)")
    assert problems[("will_add", "Uploader.send")] == (
        "declared added, but it existed before the apply (it was modified)")
    assert problems[("will_modify", "Uploader.close")] == (
        "declared modified, but the apply did not touch it (src/upload.py Uploader.close is unchanged)")
    assert problems[("will_modify", "Ghost.method")] == (
        "declared modified, but it was not found before or after the apply")
    assert problems[("will_remove", "Uploader.close")] == (
        "declared removed, but it is still defined (unchanged) at src/upload.py Uploader.close")
    assert "6 declaration(s) not lived up to:" in report.text
    assert "- will_modify Uploader.close: declared modified, but the apply did not touch it" in report.text


def test_only_the_declared_and_written_files_are_reindexed(tmp_path: Path) -> None:
    root = repo(tmp_path)
    before = cached_paths(root)
    (root / "src/other.py").write_text("def changed_behind_our_back():\n    pass\n")
    text = plan_text(PLAN_BLOCKS[0], declaration=declaration(["Uploader.send", "unrelated"], [], []))
    result = apply_text(text, root, run_checks=False).result
    report = resync(root, parse_plan(text).declarations, result.files)
    assert report.reindexed == ("src/notes.py", "src/upload.py")
    after = cached_paths(root)
    assert after["src/other.py"] == before["src/other.py"]
    assert after["src/upload.py"] != before["src/upload.py"]
    assert [(i.key, i.name) for i in report.issues] == [("will_modify", "unrelated")]


def test_a_new_file_declared_added(tmp_path: Path) -> None:
    root = repo(tmp_path)
    text = plan_text(block(1, "src/retry.py", "", "def with_retry(call):\n    return call()\n"),
                     declaration=declaration([], ["with_retry", "never_written"], []))
    result = apply_text(text, root, run_checks=False).result
    report = resync(root, parse_plan(text).declarations, result.files)
    assert report.reindexed == ("src/retry.py",)
    assert [(i.key, i.name) for i in report.issues] == [("will_add", "never_written")]
    assert "with_retry" in [s.qualname for s in build_index(root, workers=1).files["src/retry.py"].symbols]


def test_declarations_as_a_mapping_and_hostile_values(tmp_path: Path) -> None:
    root = repo(tmp_path)
    report = resync(root, {"will_modify": [3, None, "Uploader.send"], "will_add": "not a list"}, [42, "../x"])
    assert [(i.key, i.name) for i in report.issues] == [("will_modify", "Uploader.send")]
    assert report.reindexed == ("src/upload.py",)


def test_the_index_from_before_the_apply_can_be_passed(tmp_path: Path) -> None:
    root = repo(tmp_path)
    before = build_index(root, workers=1)
    text = plan_text(PLAN_BLOCKS[0], declaration=declaration(["Uploader.send"], [], []))
    result = apply_text(text, root, run_checks=False).result
    build_index(root, workers=1)
    assert resync(root, parse_plan(text).declarations, result.files, before=before).ok
    assert not resync(root, parse_plan(text).declarations, result.files).ok


def test_without_a_cache_what_cannot_be_told_is_not_reported(tmp_path: Path) -> None:
    root = write(tmp_path / "r", {"src/upload.py": UPLOAD})
    text = plan_text(*PLAN_BLOCKS, declaration=declaration(["Uploader.send"], ["Uploader._retry"],
                                                           ["Uploader.legacy"]))
    result = apply_text(text, root, run_checks=False).result
    report = resync(root, parse_plan(text).declarations, result.files)
    assert report.ok and report.reindexed == ("src/upload.py",)


def test_a_declared_file_is_not_taken_for_a_missing_symbol(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "usage.md").write_text("# usage\n")
    (tmp_path / "NOTES").write_text("notes\n")
    report = resync(tmp_path, {"will_add": ["docs/usage.md", "NOTES"]}, ["docs/usage.md", "NOTES"])
    assert report.issues == ()


def test_after_an_apply_a_refresh_that_fails_is_a_warning_never_an_error(tmp_path: Path) -> None:
    from ljtui.core.outline import after_apply

    class Broken:
        @property
        def will_modify(self) -> tuple[str, ...]:
            raise RuntimeError("declarations unreadable")

    warning = after_apply(tmp_path, Broken(), ["a.py"])
    assert warning == "The outline was not refreshed after the apply (RuntimeError: declarations unreadable)."
    write(tmp_path, {"a.py": "def greet():\n    return 1\n"})
    assert after_apply(tmp_path, {"will_modify": ["greet"]}, ["a.py"]) is None, "nothing to say"


def test_after_an_apply_a_plan_that_declares_no_symbol_re_indexes_nothing(tmp_path: Path) -> None:
    from ljtui.core.outline import after_apply

    write(tmp_path, {"a.py": "def greet():\n    return 1\n"})
    build_index(tmp_path)
    cache = tmp_path / AGENT_DIR / CACHE_DIR / ENTRIES_FILE
    before = cache.read_bytes() if cache.exists() else None
    write(tmp_path, {"a.py": "def hello():\n    return 2\n"})
    assert after_apply(tmp_path, {"will_modify": [], "will_add": [], "will_remove": []}, ["a.py"]) is None
    assert (cache.read_bytes() if cache.exists() else None) == before, "the outline cache was not touched"
