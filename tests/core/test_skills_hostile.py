"""Skill files are untrusted input: every bad file is a warning naming it, never an exception."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ljtui.core.skill_files import MAX_DESCRIPTION_CHARS, MAX_STEPS, MAX_YAML_DEPTH
from ljtui.core.skills import MAX_SKILL_FILE_BYTES, MAX_SKILLS_PER_SOURCE, load_skills
from ljtui.core.trust import TrustStore

VALID_TAIL = "description: ok\nsteps: [do it]\n"

BILLION_LAUGHS = """\
a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]
b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]
c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]
d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]
e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]
f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]
g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]
h: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g]
name: bomb
description: boom
steps: *h
"""


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {"XDG_CONFIG_HOME": str(tmp_path / "cfg"), "HOME": str(tmp_path / "home")}


@pytest.fixture
def bundled(tmp_path: Path) -> Path:
    folder = tmp_path / "bundled"
    folder.mkdir()
    return folder


def only_warning(folder: Path, env: dict[str, str], file: str, text: str | bytes) -> str:
    """Write one skill file, load, and return the single warning (no skill may load)."""
    path = folder / file
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, str):
        text = text.encode("utf-8")
    path.write_bytes(text)
    found = load_skills(None, env, bundled=folder)
    assert found.names == (), found.skills
    assert len(found.warnings) == 1, found.warnings
    assert found.warnings[0].startswith(f"bundled skill {path}: ")
    return found.warnings[0].removeprefix(f"bundled skill {path}: ")


@pytest.mark.parametrize(("text", "problem"), [
    ("name: [unclosed\n", "is not valid YAML at line 2; skipped"),
    ("- just\n- a list\n", "is not a mapping with name, description and steps; skipped"),
    ("", "is not a mapping with name, description and steps; skipped"),
    (BILLION_LAUGHS, "uses a YAML alias (*name), which skill files may not; skipped"),
    ("name: x\n" + VALID_TAIL + "deep: " + "[" * (MAX_YAML_DEPTH + 1) + "]" * (MAX_YAML_DEPTH + 1) + "\n",
     f"nests deeper than {MAX_YAML_DEPTH} levels; skipped"),
    ("name: x\ndescription: ok\nsteps: [\"" + "[" * 100_000 + "\"]\n", None),
    ("name: x\ndescription: ok\nsteps: " + "[" * 60_000 + "]" * 60_000 + "\n", None),
    ("name: x\ndescription: ok\nwhen: 2020-13-45\nsteps: [a]\n", "has a value YAML cannot read (ValueError); skipped"),
    ("name: !!python/object:os.system {}\n" + VALID_TAIL, "is not valid YAML at line 1; skipped"),
    (VALID_TAIL, "has no name; skipped"),
    ("name: 12\n" + VALID_TAIL, "name must be a string, not a number; skipped"),
    ("name: [a]\n" + VALID_TAIL, "name must be a string, not a list; skipped"),
    ("name: x\nsteps: [a]\n", "has no description; skipped"),
    ("name: x\ndescription: {a: 1}\nsteps: [a]\n", "description must be a string, not a mapping; skipped"),
    ("name: x\ndescription: '   '\nsteps: [a]\n", "description is empty; skipped"),
    (f"name: x\ndescription: {'d' * (MAX_DESCRIPTION_CHARS + 1)}\nsteps: [a]\n",
     f"description is longer than {MAX_DESCRIPTION_CHARS} characters; skipped"),
    ("name: x\ndescription: \"bad \\e[31m red\"\nsteps: [a]\n", "description contains control characters; skipped"),
    ("name: x\ndescription: ok\n", "has no steps; skipped"),
    ("name: x\ndescription: ok\nsteps: do it\n", "steps must be a list, not str; skipped"),
    ("name: x\ndescription: ok\nsteps: []\n", "steps is empty; skipped"),
    ("name: x\ndescription: ok\nsteps: [true]\n", "step 1 must be a string or a mapping, not a boolean; skipped"),
    ("name: x\ndescription: ok\nsteps: [a, {description: 3}]\n",
     "step 2 description must be a string, not a number; skipped"),
    ("name: x\ndescription: ok\nsteps: [{description: a, run: rm}]\n", "step 1 has unknown key(s) run; skipped"),
    ("name: x\ndescription: ok\nsteps: [{description: a, tool_hint: [bash]}]\n",
     "step 1 tool_hint must be a string, not a list; skipped"),
    ("name: x\ndescription: ok\nsteps: [{description: a, tool_hint: 'rm -rf /'}]\n",
     "step 1 tool_hint is not a tool or skill name; skipped"),
    ("name: x\ndescription: ok\nsteps: ['  ']\n", "step 1 is empty; skipped"),
    ("name: x\ndescription: ok\nsteps: [" + ", ".join(["a"] * (MAX_STEPS + 1)) + "]\n",
     f"has {MAX_STEPS + 1} steps; at most {MAX_STEPS} are allowed; skipped"),
], ids=lambda value: None if value is None else repr(value)[:40])
def test_a_bad_yaml_skill_is_skipped_with_a_warning_naming_it(
        bundled: Path, env: dict[str, str], text: str, problem: str | None) -> None:
    warning = only_warning(bundled, env, "skill.yaml", text)
    if problem is not None:
        assert warning == problem
    else:
        assert warning.endswith("; skipped")


@pytest.mark.parametrize("name", ["Upper", "-lead", "trail-", "dou--ble", "under_score", "dot.name", "spa ce",
                                  "é-accent", "a" * 65, ""])
def test_a_bad_name_is_refused(bundled: Path, env: dict[str, str], name: str) -> None:
    warning = only_warning(bundled, env, "skill.yaml", f"name: '{name}'\n{VALID_TAIL}")
    assert warning.startswith(f"name {name!r} is not lowercase letters, digits and single hyphens")


def test_a_name_of_64_characters_is_allowed(bundled: Path, env: dict[str, str]) -> None:
    (bundled / "long.yaml").write_text(f"name: {'a' * 64}\n{VALID_TAIL}")
    assert load_skills(None, env, bundled=bundled).names == ("a" * 64,)


def test_an_oversize_file_is_skipped_unparsed(bundled: Path, env: dict[str, str]) -> None:
    text = "name: big\n" + VALID_TAIL + "#" * MAX_SKILL_FILE_BYTES + "\n"
    assert only_warning(bundled, env, "big.yaml", text) == f"larger than {MAX_SKILL_FILE_BYTES} bytes; skipped"


def test_an_oversize_skill_md_is_skipped_unparsed(bundled: Path, env: dict[str, str]) -> None:
    text = "---\nname: big\ndescription: d\n---\n" + "x" * MAX_SKILL_FILE_BYTES
    assert only_warning(bundled, env, "big/SKILL.md", text) == f"larger than {MAX_SKILL_FILE_BYTES} bytes; skipped"


def test_a_file_that_is_not_utf8_is_skipped(bundled: Path, env: dict[str, str]) -> None:
    assert only_warning(bundled, env, "latin.yaml", b"name: caf\xe9\n") == "not UTF-8 text; skipped"


@pytest.mark.parametrize(("text", "problem"), [
    ("# no front matter\n", "does not open with front matter (a --- line); skipped"),
    ("---\nname: md\ndescription: d\n", "front matter is not closed by a --- line; skipped"),
    ("---\n- a\n---\nbody\n", "front matter is not a mapping with name and description; skipped"),
    ("---\nname: md\ndescription: d\n---\nbody \x1b]0;title\x07\n", "instructions contain control characters; skipped"),
    ("---\nname: &n md\ndescription: *n\n---\nbody\n", "uses a YAML alias (*name), which skill files may not; skipped"),
    ("---\nname: md\n---\nbody\n", "has no description; skipped"),
])
def test_a_bad_skill_md_is_skipped_with_a_warning_naming_it(
        bundled: Path, env: dict[str, str], text: str, problem: str) -> None:
    assert only_warning(bundled, env, "md/SKILL.md", text) == problem


def test_unknown_keys_are_reported_and_the_skill_still_loads(bundled: Path, env: dict[str, str]) -> None:
    keys = "".join(f"extra{n}: 1\n" for n in range(7))
    (bundled / "x.yaml").write_text(f"name: x\n{VALID_TAIL}{keys}")
    found = load_skills(None, env, bundled=bundled)
    assert found.names == ("x",)
    assert found.warnings == [f"bundled skill {bundled}/x.yaml: unknown key(s) extra0, extra1, extra2, extra3, "
                              f"extra4 and 2 more ignored"]


def test_a_fifo_named_like_a_skill_does_not_block(bundled: Path, env: dict[str, str]) -> None:
    os.mkfifo(bundled / "pipe.yaml")
    (bundled / "good.yaml").write_text(f"name: good\n{VALID_TAIL}")
    found = load_skills(None, env, bundled=bundled)
    assert found.names == ("good",)
    assert found.warnings == [f"bundled skill {bundled}/pipe.yaml: cannot be read (not a regular file); skipped"]


def test_too_many_skills_in_a_source_reads_only_the_first_ones(bundled: Path, env: dict[str, str]) -> None:
    for index in range(MAX_SKILLS_PER_SOURCE + 5):
        (bundled / f"s-{index:03d}.yaml").write_text(f"name: s-{index:03d}\n{VALID_TAIL}")
    found = load_skills(None, env, bundled=bundled)
    assert found.names == tuple(f"s-{index:03d}" for index in range(MAX_SKILLS_PER_SOURCE))
    assert found.warnings == [f"bundled skills folder {bundled} holds more than {MAX_SKILLS_PER_SOURCE} skills; "
                              f"only the first {MAX_SKILLS_PER_SOURCE} by name are read"]


def test_a_hostile_trusted_repository_cannot_break_loading(tmp_path: Path, bundled: Path,
                                                            env: dict[str, str]) -> None:
    repo = tmp_path / "repo"
    folder = repo / ".agent" / "skills"
    folder.mkdir(parents=True)
    (folder / "bomb.yaml").write_text(BILLION_LAUGHS)
    (folder / "SKILL.md").mkdir()
    (folder / "dir.yaml").mkdir()
    (folder / "ok.yaml").write_text(f"name: ok\n{VALID_TAIL}")
    TrustStore.for_env(env).trust(repo, 1.0)
    found = load_skills(repo, env, bundled=bundled)
    assert found.names == ("ok",)
    assert len(found.warnings) == 3 and all(w.startswith("repository skill .agent/skills/") for w in found.warnings)


def test_a_repository_skills_path_that_is_a_file_is_refused(tmp_path: Path, bundled: Path,
                                                           env: dict[str, str]) -> None:
    repo = tmp_path / "repo"
    (repo / ".agent").mkdir(parents=True)
    (repo / ".agent" / "skills").write_text("not a folder")
    found = load_skills(repo, env, bundled=bundled)
    assert found.names == ()
    assert found.warnings[0].startswith("repository skills refused: .agent/skills is not a folder")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.one_of(st.binary(max_size=400), st.text(max_size=400),
                 st.lists(st.sampled_from(["name: x\n", "description: d\n", "steps:\n", "  - a\n", "  - {", "&a ",
                                           "*a", "---\n", "[", "]", "{", "}", ": ", "!!binary ", "?", "\t", "\x00"]),
                          max_size=40).map("".join)))
def test_arbitrary_bytes_never_raise(tmp_path: Path, data: bytes | str) -> None:
    folder = tmp_path / "fuzz"
    (folder / "md").mkdir(parents=True, exist_ok=True)
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    (folder / "f.yaml").write_bytes(raw)
    (folder / "md" / "SKILL.md").write_bytes(b"---\n" + raw)
    found = load_skills(None, {"XDG_CONFIG_HOME": str(tmp_path / "none")}, bundled=folder)
    for path in (folder / "f.yaml", folder / "md" / "SKILL.md"):
        loaded = [s for s in found.skills.values() if s.path == path]
        warned = [w for w in found.warnings if w.startswith(f"bundled skill {path}: ")]
        assert loaded or warned, (path, found)
