"""Manifests read back from the repository are accepted only in exactly the shape ljtui writes."""

from __future__ import annotations

import copy
import json
import os
import stat
from pathlib import Path
from typing import Any, Callable

import pytest

from ljtui.core.edits import journal as J
from ljtui.core.edits.manifest import ManifestInvalid, parse_manifest, temp_name
from ljtui.core.edits.recovery import recover_journal
from ljtui.core.edits.validate import FileChange
from tests.core.edits.helpers import interrupted_transaction
from tests.core.edits.journal_helpers import manifest, record, tree, write_journal

HEX = "ab" * 32
Mutation = Callable[[dict[str, Any]], None]


def written_manifest(tmp_path: Path) -> dict[str, Any]:
    """The manifest a real transaction writes for one modified and one created file."""
    (tmp_path / "a.py").write_bytes(b"a\n")
    tx = interrupted_transaction(tmp_path, [FileChange("a.py", tmp_path / "a.py", b"a\n", b"A\n"),
                                            FileChange("d/e/n.py", tmp_path / "d" / "e" / "n.py", None, b"n\n")])
    return json.loads((tx.dir / J.MANIFEST).read_bytes())


def setter(*path: Any, value: Any) -> Mutation:
    def mutate(data: dict[str, Any]) -> None:
        target = data
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
    return mutate


def deleter(*path: Any) -> Mutation:
    def mutate(data: dict[str, Any]) -> None:
        target = data
        for key in path[:-1]:
            target = target[key]
        del target[path[-1]]
    return mutate


MUTATIONS: list[tuple[str, Mutation, str]] = [
    ("unknown top key", setter("extra", value=1), "the manifest has unknown keys: 'extra'"),
    ("missing key", deleter("group"), "the manifest lacks keys: group"),
    ("future version", setter("version", value=3), "version 3 is not one ljtui knows (1, 2)"),
    ("version as text", setter("version", value="2"), "version '2' is not an integer"),
    ("version as bool", setter("version", value=True), "version True is not an integer"),
    ("id of another folder", setter("id", value="tx9999"), "id 'tx9999' does not match its folder's id 'tx0001'"),
    ("id with a slash", setter("id", value="../x"), "id '../x' is not a transaction id (letters, digits, _ and -)"),
    ("unknown kind", setter("kind", value="delete"), "kind 'delete' is not one of apply, undo"),
    ("created NaN", setter("created", value=float("nan")), "manifest.json is not valid JSON (ValueError)"),
    ("created text", setter("created", value="now"), "created 'now' is not a time in seconds"),
    ("entries not strings", setter("entries", value=[1]), "entries is not a list of strings"),
    ("files not a list", setter("files", value={}), "files is not a list"),
    ("unknown record key", setter("files", 0, "owner", value="root"), "files[0] has unknown keys: 'owner'"),
    ("absolute path", setter("files", 0, "path", value="/home/u/.bashrc"),
     "files[0].path '/home/u/.bashrc' is refused: /home/u/.bashrc is absolute; plan paths are relative to the "
     "repo root"),
    ("parent path", setter("files", 0, "path", value="../x"),
     "files[0].path '../x' is refused: ../x uses `..`; plan paths stay inside the repo root"),
    ("git path", setter("files", 0, "path", value="sub/.GIT/config"),
     "files[0].path 'sub/.GIT/config' is refused: sub/.GIT/config is inside a .git folder or file, which plans may "
     "not create or change"),
    ("agent path", setter("files", 0, "path", value=".agent/journal/x"),
     "files[0].path '.agent/journal/x' is refused: .agent/journal/x is inside .agent/, ljtui's own state folder, "
     "which plans may not create or change"),
    ("path not canonical", setter("files", 0, "path", value="./a.py"), "files[0].path './a.py' is not in canonical form"),
    ("path not text", setter("files", 0, "path", value=["a.py"]), "files[0].path ['a.py'] is not a string"),
    ("existed not bool", setter("files", 0, "existed", value=1), "files[0].existed 1 is not true or false"),
    ("mode too large", setter("files", 0, "mode", value=0o10000), "files[0].mode 4096 is not a file mode (0 to 0o7777)"),
    ("mode negative", setter("files", 0, "mode", value=-1), "files[0].mode -1 is not a file mode (0 to 0o7777)"),
    ("mode as text", setter("files", 0, "mode", value="644"), "files[0].mode '644' is not an integer"),
    ("digest not hex", setter("files", 0, "before_sha256", value="xyz"),
     "files[0].before_sha256 'xyz' is neither null nor a sha256 in lowercase hex"),
    ("digest upper case", setter("files", 0, "after_sha256", value=HEX.upper()),
     f"files[0].after_sha256 '{HEX.upper()}' is neither null nor a sha256 in lowercase hex"),
    ("blob of another record", setter("files", 0, "blob", value="blobs/1"),
     "files[0] existed, so it needs blob 'blobs/0', a before_sha256 and a mode"),
    ("blob outside its folder", setter("files", 0, "blob", value="../../../../etc/passwd"),
     "files[0] existed, so it needs blob 'blobs/0', a before_sha256 and a mode"),
    ("blob for a new file", setter("files", 1, "blob", value="blobs/1"),
     "files[1] did not exist, so its blob, before_sha256 and mode must be null"),
    ("temp elsewhere", setter("files", 0, "temp", value="../victim"),
     "files[0].temp '../victim' is not '.ljtui-tx0001-0.tmp', the temp name of this record"),
    ("temp of another record", setter("files", 1, "temp", value="d/e/.ljtui-tx0001-0.tmp"),
     "files[1].temp 'd/e/.ljtui-tx0001-0.tmp' is not 'd/e/.ljtui-tx0001-1.tmp', the temp name of this record"),
    ("created dir not an ancestor", setter("files", 1, "created_dirs", value=["elsewhere"]),
     "files[1].created_dirs ['elsewhere'] are not the innermost folders of 'd/e/n.py'"),
    ("created dir outside", setter("files", 1, "created_dirs", value=["d", "d/e", "../x"]),
     "files[1].created_dirs ['d', 'd/e', '../x'] are not the innermost folders of 'd/e/n.py'"),
    ("created dirs out of order", setter("files", 1, "created_dirs", value=["d/e", "d"]),
     "files[1].created_dirs ['d/e', 'd'] are not the innermost folders of 'd/e/n.py'"),
    ("record not an object", setter("files", 1, value=None), "files[1] is not an object"),
]


def test_the_manifest_a_transaction_writes_is_accepted(tmp_path):
    data = written_manifest(tmp_path)
    loaded = parse_manifest(json.dumps(data).encode(), "tx0001")
    assert [r.path for r in loaded.files] == ["a.py", "d/e/n.py"]
    assert loaded.files[1].created_dirs == ["d", "d/e"]
    assert loaded.files[0].temp == ".ljtui-tx0001-0.tmp" and loaded.version == 2


@pytest.mark.parametrize(("name", "mutate", "reason"), MUTATIONS, ids=[m[0] for m in MUTATIONS])
def test_every_deviation_is_refused_with_its_reason(tmp_path, name, mutate, reason):
    data = copy.deepcopy(written_manifest(tmp_path))
    mutate(data)
    with pytest.raises(ManifestInvalid) as caught:
        parse_manifest(json.dumps(data).encode(), "tx0001")
    assert str(caught.value) == reason


def test_a_path_named_twice_is_refused(tmp_path):
    data = written_manifest(tmp_path)
    data["files"][1] = dict(data["files"][0], temp=".ljtui-tx0001-1.tmp", blob="blobs/1")
    with pytest.raises(ManifestInvalid) as caught:
        parse_manifest(json.dumps(data).encode(), "tx0001")
    assert str(caught.value) == "files[1].path 'a.py' appears twice"


@pytest.mark.parametrize(("raw", "reason"), [
    (b"not json", "manifest.json is not valid JSON (JSONDecodeError)"),
    (b"[" * 100_000 + b"]" * 100_000, "manifest.json is not valid JSON (RecursionError)"),
    (b"[]", "the manifest is not an object"),
    (b'{"created": 1e999}', "the manifest lacks keys: entries, files, group, id, kind, version"),
])
def test_malformed_json_is_refused(raw, reason):
    with pytest.raises(ManifestInvalid) as caught:
        parse_manifest(raw, "tx0001")
    assert str(caught.value) == reason


def test_legacy_temp_names_are_accepted_in_version_one_only(tmp_path):
    data = written_manifest(tmp_path)
    data["version"] = 1
    for n, rec in enumerate(data["files"]):
        rec["temp"] = temp_name(rec["path"], "tx0001", n, version=1)
    assert parse_manifest(json.dumps(data).encode(), "tx0001").files[0].temp == ".a.py.tx0001.ljtui-tmp"
    data["version"] = 2
    with pytest.raises(ManifestInvalid):
        parse_manifest(json.dumps(data).encode(), "tx0001")


def test_recovery_quarantines_a_bad_journal_and_recovers_the_others(tmp_path):
    (tmp_path / "a.py").write_bytes(b"a\n")
    interrupted_transaction(tmp_path, [FileChange("a.py", tmp_path / "a.py", b"a\n", b"A\n")])
    bad = record(0, "b.py", before=b"evil\n", after=b"b\n", tx_id="0000")
    bad["created_dirs"] = ["b.py"]
    write_journal(tmp_path, "tx-0000", manifest("0000", [bad]), {0: b"evil\n"})
    (tmp_path / "b.py").write_bytes(b"b\n")
    report = recover_journal(tmp_path)
    assert report.transactions == [("tx0001", [("a.py", "restored")])]
    (moved,) = report.quarantined
    assert (moved.name, moved.moved_to) == ("tx-0000", ".agent/journal/quarantine-tx-0000")
    assert moved.reason == "files[0].created_dirs ['b.py'] are not the innermost folders of 'b.py'"
    assert report.errors == [moved.line()]
    assert (tmp_path / "a.py").read_bytes() == b"a\n" and (tmp_path / "b.py").read_bytes() == b"b\n"
    assert J.pending(tmp_path) == []


def test_quarantine_never_overwrites_an_earlier_quarantine(tmp_path):
    for _ in range(2):
        write_journal(tmp_path, "tx-1", b"{}")
        recover_journal(tmp_path)
    names = sorted(p.name for p in J.journal_dir(tmp_path).iterdir())
    assert names == [".lock", "quarantine-tx-1", "quarantine-tx-1-1"]


def test_a_regular_file_named_like_a_journal_is_quarantined(tmp_path):
    (tmp_path / ".agent" / "journal").mkdir(parents=True)
    (tmp_path / ".agent" / "journal" / "tx-1").write_bytes(b"x")
    report = recover_journal(tmp_path)
    assert [q.reason for q in report.quarantined] == ["it is not a folder"]
    assert (tmp_path / ".agent" / "journal" / "quarantine-tx-1").read_bytes() == b"x"


def test_recovery_never_overwrites_a_file_changed_since_the_crash(tmp_path):
    (tmp_path / "a.py").write_bytes(b"a\n")
    interrupted_transaction(tmp_path, [FileChange("a.py", tmp_path / "a.py", b"a\n", b"A\n")])
    (tmp_path / "a.py").write_bytes(b"edited by hand after the crash\n")
    before = tree(tmp_path)
    report = recover_journal(tmp_path)
    assert [q.reason for q in report.quarantined] == [
        "a.py changed since the transaction: it holds neither its old nor its new bytes, and ljtui never "
        "overwrites changes it did not make"]
    assert (tmp_path / "a.py").read_bytes() == b"edited by hand after the crash\n"
    assert {k: v for k, v in tree(tmp_path).items() if not k.startswith(".agent")} == \
        {k: v for k, v in before.items() if not k.startswith(".agent")}


def test_a_crafted_journal_cannot_replace_a_file_whose_bytes_it_does_not_know(tmp_path):
    (tmp_path / ".env").write_bytes(b"SECRET=1\n")
    rec = record(0, ".env", before=b"EVIL=1\n", after=b"guess\n", tx_id="1")
    write_journal(tmp_path, "tx-1", manifest("1", [rec]), {0: b"EVIL=1\n"})
    report = recover_journal(tmp_path)
    assert len(report.quarantined) == 1 and report.transactions == []
    assert (tmp_path / ".env").read_bytes() == b"SECRET=1\n"


def test_a_snapshot_sharing_its_inode_with_another_file_is_copied_not_moved(tmp_path):
    shared = tmp_path / "shared.txt"
    shared.write_bytes(b"shared\n")
    os.chmod(shared, 0o644)
    (tmp_path / "a.py").write_bytes(b"half\n")
    rec = record(0, "a.py", before=b"shared\n", after=b"half\n", tx_id="1", mode=0o755)
    directory = write_journal(tmp_path, "tx-1", manifest("1", [rec]))
    os.link(shared, directory / "blobs" / "0")
    report = recover_journal(tmp_path)
    assert report.transactions == [("1", [("a.py", "restored")])]
    restored, kept = os.stat(tmp_path / "a.py"), os.stat(shared)
    assert (tmp_path / "a.py").read_bytes() == b"shared\n" and stat.S_IMODE(restored.st_mode) == 0o755
    assert restored.st_ino != kept.st_ino and stat.S_IMODE(kept.st_mode) == 0o644
    assert shared.read_bytes() == b"shared\n"
