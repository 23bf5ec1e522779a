"""Skills: both formats, the three sources, precedence, trust, and the lookup API."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ljtui.core.skills import (
    BUILTIN_NAMES,
    TOOL_NAMES,
    Skill,
    Step,
    bundled_skills_dir,
    load_skills,
)
from ljtui.core.trust import TrustStore

TRUSTED_AT = 1_700_000_000.0

YAML_SKILL = """\
name: {name}
description: {description}
steps:
  - Find the failing test
  - description: Fix the code
    tool_hint: edit_file
"""

SKILL_MD = """\
---
name: {name}
description: {description}
license: MIT
---

# Heading

First paragraph line one
continues here.

Second paragraph.
"""


def write_yaml(folder: Path, name: str, description: str = "does a thing", file: str | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / (file or f"{name}.yaml")
    path.write_text(YAML_SKILL.format(name=name, description=description), encoding="utf-8")
    return path


def write_md(folder: Path, name: str, description: str = "does a thing", body: str | None = None) -> Path:
    (folder / name).mkdir(parents=True, exist_ok=True)
    text = SKILL_MD.format(name=name, description=description)
    if body is not None:
        text = f"---\nname: {name}\ndescription: {description}\n---\n{body}"
    path = folder / name / "SKILL.md"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {"XDG_CONFIG_HOME": str(tmp_path / "cfg"), "HOME": str(tmp_path / "home")}


@pytest.fixture
def user_dir(tmp_path: Path) -> Path:
    return tmp_path / "cfg" / "ljtui" / "skills"


@pytest.fixture
def bundled(tmp_path: Path) -> Path:
    folder = tmp_path / "bundled"
    folder.mkdir()
    return folder


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    return root


def repo_skills(repo: Path) -> Path:
    return repo / ".agent" / "skills"


def trust(repo: Path, env: dict[str, str]) -> None:
    TrustStore.for_env(env).trust(repo, TRUSTED_AT)


def test_the_bundled_skills_all_load_cleanly(env: dict[str, str]) -> None:
    found = load_skills(None, env)
    assert found.warnings == [] and found.notes == []
    assert len(found.names) >= 3
    for skill in found.skills.values():
        assert skill.source == "bundled" and skill.path.is_file()
        assert skill.path.parent == bundled_skills_dir() or skill.path.parent.parent == bundled_skills_dir()
        assert skill.steps and all(step.description for step in skill.steps)
        assert all(step.tool_hint is None or step.tool_hint in TOOL_NAMES for step in skill.steps)
    assert {"yaml", "md"} <= {"md" if s.path.name == "SKILL.md" else "yaml" for s in found.skills.values()}


def test_an_installed_bundled_folder_with_its_pycache_loads_cleanly(bundled: Path, env: dict[str, str]) -> None:
    """Installed, the bundled skills package gets a ``__pycache__`` folder: it is not a skill folder."""
    for skill in bundled_skills_dir().iterdir():
        if skill.name != "__pycache__":
            target = bundled / skill.name
            shutil.copytree(skill, target) if skill.is_dir() else shutil.copyfile(skill, target)
    (bundled / "__pycache__").mkdir()
    (bundled / "__pycache__" / "__init__.cpython-311.pyc").write_bytes(b"\x00")
    found = load_skills(None, env, bundled=bundled)
    assert found.warnings == [] and len(found.names) >= 3


def test_a_yaml_skill_is_read_with_its_steps_and_hints(bundled: Path, env: dict[str, str]) -> None:
    path = write_yaml(bundled, "fix-it", "fixes   a\n bug")
    skill = load_skills(None, env, bundled=bundled).get("fix-it")
    assert skill == Skill("fix-it", "fixes a bug", (Step("Find the failing test"), Step("Fix the code", "edit_file")),
                          "bundled", bundled / "fix-it.yaml")
    assert skill.path == path and skill.steps[1] == ("Fix the code", "edit_file")
    assert skill.task_specs() == [
        {"id": 1, "description": "Find the failing test", "tool_hint": None, "depends_on": []},
        {"id": 2, "description": "Fix the code", "tool_hint": "edit_file", "depends_on": [1]},
    ]


def test_a_yml_suffix_is_a_yaml_skill_too(bundled: Path, env: dict[str, str]) -> None:
    write_yaml(bundled, "short", file="short.yml")
    assert load_skills(None, env, bundled=bundled).names == ("short",)


def test_an_agent_skills_folder_is_one_step_from_its_first_paragraph(bundled: Path, env: dict[str, str]) -> None:
    write_md(bundled, "md-skill", "reads markdown")
    found = load_skills(None, env, bundled=bundled)
    skill = found.get("/md-skill")
    assert found.warnings == []
    assert skill is not None and skill.path == bundled / "md-skill" / "SKILL.md"
    assert skill.description == "reads markdown"
    assert skill.steps == (Step("First paragraph line one continues here."),)
    assert skill.instructions.startswith("# Heading") and "Second paragraph." in skill.instructions


def test_an_agent_skills_folder_with_a_steps_section_has_those_steps(bundled: Path, env: dict[str, str]) -> None:
    body = ("Intro.\n\n## Steps\n\n1. Read the code\n   carefully.\n2) Change it\n- Run tests\n\n"
            "## Notes\n\n- not a step\n")
    write_md(bundled, "stepped", body=body)
    skill = load_skills(None, env, bundled=bundled).get("stepped")
    assert skill is not None
    assert [s.description for s in skill.steps] == ["Read the code carefully.", "Change it", "Run tests"]


def test_an_agent_skills_folder_with_no_body_is_one_step_from_its_description(
        bundled: Path, env: dict[str, str]) -> None:
    write_md(bundled, "bare", "just the description", body="\n")
    skill = load_skills(None, env, bundled=bundled).get("bare")
    assert skill is not None and skill.steps == (Step("just the description"),)


def test_a_skill_md_whose_name_differs_from_its_folder_is_skipped(bundled: Path, env: dict[str, str]) -> None:
    write_md(bundled, "folder-name")
    text = (bundled / "folder-name" / "SKILL.md").read_text().replace("name: folder-name", "name: other-name")
    (bundled / "folder-name" / "SKILL.md").write_text(text)
    found = load_skills(None, env, bundled=bundled)
    assert found.names == ()
    assert found.warnings == [f"bundled skill {bundled}/folder-name/SKILL.md: name 'other-name' differs from "
                              f"its folder's name 'folder-name'; skipped"]


def test_a_folder_without_skill_md_and_other_files_are_handled(bundled: Path, env: dict[str, str]) -> None:
    (bundled / "empty-folder").mkdir()
    (bundled / "README.md").write_text("not a skill")
    (bundled / ".hidden.yaml").write_text("::")
    found = load_skills(None, env, bundled=bundled)
    assert found.names == ()
    assert found.warnings == [f"bundled skill {bundled}/empty-folder/SKILL.md: missing (a skill folder needs a "
                              f"SKILL.md); skipped"]


def test_a_user_skill_is_loaded_from_the_config_dir(user_dir: Path, bundled: Path, env: dict[str, str]) -> None:
    write_md(user_dir, "mine")
    found = load_skills(None, env, bundled=bundled)
    assert found.names == ("mine",) and found.get("mine").source == "user"


def test_later_sources_replace_earlier_ones_with_a_note(
        user_dir: Path, bundled: Path, repo: Path, env: dict[str, str]) -> None:
    write_yaml(bundled, "shared", "bundled version")
    write_yaml(bundled, "only-bundled")
    write_yaml(user_dir, "shared", "user version")
    write_yaml(user_dir, "mine")
    write_md(repo_skills(repo), "mine", "repository version")
    trust(repo, env)
    found = load_skills(repo, env, bundled=bundled)
    assert found.warnings == []
    assert {name: (s.source, s.description) for name, s in found.skills.items()} == {
        "shared": ("user", "user version"), "only-bundled": ("bundled", "does a thing"),
        "mine": ("repository", "repository version")}
    assert found.get("mine").path == repo_skills(repo) / "mine" / "SKILL.md"
    assert found.notes == [
        f"skill 'shared' from user ({user_dir}/shared.yaml) replaces the bundled one ({bundled}/shared.yaml)",
        f"skill 'mine' from repository (.agent/skills/mine/SKILL.md) replaces the user one ({user_dir}/mine.yaml)",
    ]


def test_repository_skills_are_ignored_with_one_notice_until_the_repository_is_trusted(
        bundled: Path, repo: Path, env: dict[str, str]) -> None:
    write_yaml(repo_skills(repo), "repo-one")
    write_md(repo_skills(repo), "repo-two")
    found = load_skills(repo, env, bundled=bundled)
    assert found.names == ()
    assert found.ignored == [".agent/skills/repo-one.yaml", ".agent/skills/repo-two"]
    assert found.warnings == ["2 repository skill(s) in .agent/skills are ignored because this repository is not "
                              "trusted; `ljtui trust` enables them"]
    trust(repo, env)
    found = load_skills(repo, env, bundled=bundled)
    assert found.names == ("repo-one", "repo-two") and found.warnings == [] and found.ignored == []
    assert {s.source for s in found.skills.values()} == {"repository"}


def test_an_untrusted_repository_skill_is_never_parsed(bundled: Path, repo: Path, env: dict[str, str]) -> None:
    folder = repo_skills(repo)
    folder.mkdir(parents=True)
    (folder / "bad.yaml").write_text("name: [unclosed\n")
    found = load_skills(repo, env, bundled=bundled)
    assert len(found.warnings) == 1 and "not trusted" in found.warnings[0]


def test_a_repository_without_skills_adds_nothing(bundled: Path, repo: Path, env: dict[str, str]) -> None:
    (repo / ".agent").mkdir()
    found = load_skills(repo, env, bundled=bundled)
    assert (found.names, found.warnings, found.ignored) == ((), [], [])


def test_a_symlinked_agent_skills_folder_is_refused(
        bundled: Path, repo: Path, tmp_path: Path, env: dict[str, str]) -> None:
    elsewhere = tmp_path / "elsewhere"
    write_yaml(elsewhere, "outside")
    (repo / ".agent").mkdir()
    (repo / ".agent" / "skills").symlink_to(elsewhere)
    trust(repo, env)
    found = load_skills(repo, env, bundled=bundled)
    assert found.names == ()
    assert len(found.warnings) == 1
    assert found.warnings[0].startswith("repository skills refused: .agent/skills is a symbolic link")


def test_a_symlinked_agent_folder_is_refused(bundled: Path, repo: Path, tmp_path: Path, env: dict[str, str]) -> None:
    elsewhere = tmp_path / "elsewhere-agent"
    write_yaml(elsewhere / "skills", "outside")
    (repo / ".agent").symlink_to(elsewhere)
    trust(repo, env)
    found = load_skills(repo, env, bundled=bundled)
    assert found.names == ()
    assert found.warnings[0].startswith("repository skills refused: .agent is a symbolic link")


def test_a_symlinked_skill_file_or_folder_is_refused_and_the_rest_load(
        bundled: Path, repo: Path, tmp_path: Path, env: dict[str, str]) -> None:
    elsewhere = tmp_path / "elsewhere"
    write_yaml(elsewhere, "linked-file")
    write_md(elsewhere, "linked-folder")
    folder = repo_skills(repo)
    write_yaml(folder, "real")
    (folder / "linked-file.yaml").symlink_to(elsewhere / "linked-file.yaml")
    (folder / "linked-folder").symlink_to(elsewhere / "linked-folder")
    write_md(folder, "inner-link")
    (folder / "inner-link" / "SKILL.md").unlink()
    (folder / "inner-link" / "SKILL.md").symlink_to(elsewhere / "linked-folder" / "SKILL.md")
    trust(repo, env)
    found = load_skills(repo, env, bundled=bundled)
    assert found.names == ("real",)
    assert found.warnings == [
        "repository skill .agent/skills/linked-file.yaml refused: it is a symbolic link, and ljtui reads repository "
        "skills only from real files and folders",
        "repository skill .agent/skills/linked-folder refused: it is a symbolic link, and ljtui reads repository "
        "skills only from real files and folders",
        "repository skill .agent/skills/inner-link/SKILL.md refused: is a symbolic link",
    ]


def test_a_skill_may_not_shadow_a_tool_or_slash_command(bundled: Path, env: dict[str, str]) -> None:
    write_yaml(bundled, "bash")
    write_md(bundled, "plan")
    write_yaml(bundled, "fine")
    found = load_skills(None, env, bundled=bundled)
    assert found.names == ("fine",)
    assert found.warnings == [
        f"bundled skill {bundled}/bash.yaml: name 'bash' is a tool or slash command; skipped",
        f"bundled skill {bundled}/plan/SKILL.md: name 'plan' is a tool or slash command; skipped",
    ]


def test_every_agent_tool_is_a_reserved_name() -> None:
    from ljtui.core.agent.tools import agent_tools

    assert set(agent_tools().names) <= BUILTIN_NAMES


def test_a_caller_may_reserve_more_names(bundled: Path, env: dict[str, str]) -> None:
    write_yaml(bundled, "new-tool")
    found = load_skills(None, env, bundled=bundled, reserved=BUILTIN_NAMES | {"new-tool"})
    assert found.names == () and "is a tool or slash command" in found.warnings[0]


def test_duplicate_names_within_a_source_keep_the_first_file(bundled: Path, env: dict[str, str]) -> None:
    write_yaml(bundled, "twice", "first", file="a.yaml")
    write_yaml(bundled, "twice", "second", file="b.yaml")
    found = load_skills(None, env, bundled=bundled)
    assert found.get("twice").description == "first"
    assert found.warnings == [f"bundled skill {bundled}/b.yaml: name 'twice' is already used by "
                              f"{bundled}/a.yaml; skipped"]


def test_a_lookup_is_exact(bundled: Path, env: dict[str, str]) -> None:
    write_yaml(bundled, "rename-thing")
    found = load_skills(None, env, bundled=bundled)
    assert found.get("rename-thing") is found.get("/rename-thing") is not None
    assert found.get("rename") is None and found.get("Rename-Thing") is None and found.get("") is None


def test_the_prompt_listing_is_sorted_and_bounded(bundled: Path, env: dict[str, str]) -> None:
    for index in range(30):
        write_yaml(bundled, f"skill-{index:02d}", "x" * 100)
    found = load_skills(None, env, bundled=bundled)
    full = found.prompt_listing(100_000)
    assert full.splitlines()[0] == f"skill-00: {'x' * 100}" and len(full.splitlines()) == 30
    for limit in (0, 5, 20, 150, 500, 1000, len(full) - 1):
        text = found.prompt_listing(limit)
        assert len(text) <= limit
        if limit >= 150:
            lines = text.splitlines()
            assert lines[0] == f"skill-00: {'x' * 100}"
            assert lines[-1] == f"(+{30 - (len(lines) - 1)} more)"
    assert found.prompt_listing(len(full)) == full


def test_no_sources_at_all_is_an_empty_set(tmp_path: Path, env: dict[str, str]) -> None:
    found = load_skills(tmp_path / "no-repo", env, bundled=tmp_path / "missing")
    assert (found.names, found.warnings, found.notes, found.prompt_listing(100)) == ((), [], [], "")


def test_repository_warnings_name_files_relative_to_the_repository(
        bundled: Path, repo: Path, env: dict[str, str]) -> None:
    write_yaml(repo_skills(repo), "twice", file="a.yaml")
    write_md(repo_skills(repo), "twice")
    trust(repo, env)
    found = load_skills(repo, env, bundled=bundled)
    assert found.get("twice").path == repo_skills(repo) / "a.yaml"
    assert found.warnings == ["repository skill .agent/skills/twice/SKILL.md: name 'twice' is already used by "
                              ".agent/skills/a.yaml; skipped"]
