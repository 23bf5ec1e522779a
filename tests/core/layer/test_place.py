"""Where a repository's layer lives, its lock and its record."""

from __future__ import annotations

import fcntl
import json
import os
import time
import stat
from pathlib import Path

import pytest

from ljtui.core.layer.place import (
    FOLDER_MODE, MAX_RECORD_BYTES, LayerPlace, LayerRecordError, layer_key, stamp_of,
)
from ljtui.core.userdirs import user_state_dir
from tests.core.layer.helpers import layer_of, run_ok


def test_the_key_is_the_real_path_s(tmp_path: Path) -> None:
    (tmp_path / "repo").mkdir()
    (tmp_path / "other").mkdir()
    (tmp_path / "alias").symlink_to(tmp_path / "repo")
    key = layer_key(tmp_path / "repo")
    assert len(key) == 24 and int(key, 16) >= 0
    assert layer_key(tmp_path / "alias") == key
    assert layer_key(tmp_path / "other") != key


def test_the_place_is_in_the_state_folder_and_made_private(git_repo: Path) -> None:
    place = LayerPlace.of(git_repo)
    assert place.folder == user_state_dir() / "layers" / layer_key(git_repo)
    assert place.repo == Path(os.path.realpath(git_repo))
    assert not place.folder.exists() and not place.exists()
    place.ensure()
    assert place.exists()
    for folder in (place.folder, place.upper, place.work):
        assert stat.S_IMODE(os.stat(folder).st_mode) == FOLDER_MODE
    assert not str(place.folder).startswith(str(git_repo))


def test_the_place_follows_the_given_environment(git_repo: Path, tmp_path: Path) -> None:
    env = {"XDG_STATE_HOME": str(tmp_path / "elsewhere")}
    assert LayerPlace.of(git_repo, env).folder == user_state_dir(env) / "layers" / layer_key(git_repo)
    assert str(LayerPlace.of(git_repo, env).folder).startswith(str(tmp_path / "elsewhere"))


def test_the_lock_excludes_another_holder(git_repo: Path) -> None:
    place = LayerPlace.of(git_repo)

    def free() -> bool:
        fd = os.open(place.folder / "lock", os.O_RDWR)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        finally:
            os.close(fd)
        return True

    with place.locked():
        assert not free()
    assert free()


def test_stamps_round_trip(git_repo: Path) -> None:
    place = LayerPlace.of(git_repo)
    place.ensure()
    assert place.read_stamps() == {}
    stamp = stamp_of(git_repo / "app.py")
    assert stamp is not None and stamp_of(git_repo / "missing") is None
    (place.folder / "layer.json.new").write_text("left by a crash")
    place.write_stamps({"app.py": stamp, "new.py": None})
    assert place.read_stamps() == {"app.py": stamp, "new.py": None}
    record = json.loads(place.record_path.read_text())
    assert record["version"] == 1 and record["repo"] == str(place.repo)
    assert not (place.folder / "layer.json.new").exists()


def write_record(place: LayerPlace, record: object) -> None:
    place.ensure()
    place.record_path.write_text(json.dumps(record))


@pytest.mark.parametrize(("record", "says"), [
    ([1, 2], "is not a layer record of version 1"),
    ({"version": 2, "repo": "R", "stamps": {}}, "is not a layer record of version 1"),
    ({"version": 1, "repo": "/somewhere/else", "stamps": {}}, "belongs to '/somewhere/else', not "),
    ({"version": 1, "repo": "R", "stamps": []}, "'stamps' is not an object"),
    ({"version": 1, "repo": "R", "stamps": {"a.py": [1, 2, 3]}}, "the stamp of 'a.py' is not four integers"),
    ({"version": 1, "repo": "R", "stamps": {"a.py": [1, 2, 3, "4"]}}, "the stamp of 'a.py' is not four integers"),
    ({"version": 1, "repo": "R", "stamps": {"a.py": [True, 2, 3, 4]}}, "the stamp of 'a.py' is not four integers"),
    ({"version": 1, "repo": "R", "stamps": {"a.py": 7}}, "the stamp of 'a.py' is not four integers"),
])
def test_a_record_of_the_wrong_shape_is_refused(git_repo: Path, record: object, says: str) -> None:
    place = LayerPlace.of(git_repo)
    if isinstance(record, dict) and record.get("repo") == "R":
        record["repo"] = str(place.repo)
    write_record(place, record)
    with pytest.raises(LayerRecordError) as caught:
        place.read_stamps()
    assert str(caught.value).startswith(str(place.record_path)) and says in str(caught.value)


def test_a_record_that_is_not_json_or_too_large_is_refused(git_repo: Path) -> None:
    place = LayerPlace.of(git_repo)
    place.ensure()
    place.record_path.write_bytes(b"{not json")
    with pytest.raises(LayerRecordError, match="is not JSON"):
        place.read_stamps()
    place.record_path.write_bytes(b"")
    os.truncate(place.record_path, MAX_RECORD_BYTES + 1)  # sparse: nothing is written
    with pytest.raises(LayerRecordError, match=f"is larger than {MAX_RECORD_BYTES} bytes"):
        place.read_stamps()


def test_a_record_that_is_a_link_is_not_followed(git_repo: Path, tmp_path: Path) -> None:
    place = LayerPlace.of(git_repo)
    place.ensure()
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_text(json.dumps({"version": 1, "repo": str(place.repo), "stamps": {}}))
    place.record_path.symlink_to(elsewhere)
    with pytest.raises(LayerRecordError, match="cannot be read"):
        place.read_stamps()


def test_remove_takes_a_mounted_layer_s_folders_and_leaves_the_lock(git_repo: Path) -> None:
    layer = layer_of(git_repo)
    run_ok(layer, "echo more >> README.md")
    place = layer.place
    assert place.record_path.is_file() and any(place.work.iterdir())  # overlayfs left its work folder
    with layer.holding():
        place.remove()
    assert sorted(os.listdir(place.folder)) in (["lock"], ["lock", "trash"])  # the trash empties in the background
    deadline = time.monotonic() + 30
    while (place.folder / "trash").is_dir() and any((place.folder / "trash").iterdir()):
        assert time.monotonic() < deadline, os.listdir(place.folder / "trash")
        time.sleep(0.02)
    place.remove()  # nothing left to remove: no error
