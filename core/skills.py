"""Skills (AGENT-8): named, described recipes the task planner can use as a ready-made plan.

Skills come from three sources, read in this order; a later source's skill
replaces an earlier one of the same name, with a note:

1. ``bundled``: the ``skills/`` folder shipped with ljtui;
2. ``user``: ``skills/`` in the user's config dir;
3. ``repository``: ``.agent/skills/`` in the repository, read only when the
   user trusts the repository (``ljtui trust``), reached through
   :mod:`ljtui.core.statedir` so no symbolic link is ever followed;
4. ``playbook``: every active playbook (:mod:`ljtui.core.playbooks.skills`),
   as ``playbook-<id>`` with its SOP as the steps; the repository's only
   when it is trusted.

Each source holds YAML skills (``*.yaml``, ``*.yml``) and Agent Skills
folders (``NAME/SKILL.md``); :mod:`ljtui.core.skill_files` parses them. A
file that cannot be used is skipped with a warning naming it: loading
never raises. The bundled folder and the config dir are the user's own, so
links there are followed; in the repository a linked folder or file is
refused.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Mapping

from ljtui.core.skill_files import ParsedSkill, Skill, SkillFileError, Step, parse_skill_md, parse_yaml_skill
from ljtui.core.statedir import AGENT_DIR, StateDirUnsafe, open_state_file, read_regular, state_dir
from ljtui.core.userdirs import user_config_dir

__all__ = ["Skill", "SkillSet", "Step", "load_skills", "BUILTIN_NAMES"]

BUNDLED, USER, REPOSITORY = "bundled", "user", "repository"
"""Where a skill was found, in order of precedence (later wins)."""
SKILLS_DIR = "skills"
"""The folder name of every source: bundled, in the config dir, and below ``.agent``."""
SKILL_MD = "SKILL.md"
PYTHON_FOLDERS = frozenset({"__pycache__"})
"""Folders the bundled skills package gets from Python itself, never skills."""
"""The file that makes a folder an Agent Skills skill."""
YAML_SUFFIXES = (".yaml", ".yml")
"""The file suffixes of YAML skills."""
MAX_SKILL_FILE_BYTES = 64 * 1024
"""A skill file larger than this is skipped."""
MAX_SKILLS_PER_SOURCE = 64
"""At most this many skills are read from one source (the first by file name)."""
MAX_SCANNED_ENTRIES = 1024
"""A skills folder is listed up to this many entries; the rest are not looked at."""
TOOL_NAMES = ("read_file", "list_files", "grep_files", "get_outline", "find_symbol", "write_file", "edit_file",
              "apply_patch", "create_directory", "bash", "propose_commit", "web_search", "web_fetch", "save_memory",
              "update_task_plan", "complete_task", "playbook_save", "playbook_search", "playbook_get",
              "playbook_promote", "playbook_feedback", "gate_status", "gate_propose", "gate_confirm", "gate_start",
              "gate_check", "gate_verify", "gate_finish", "gate_deliver")
"""The agent's tools: a skill may not take one of these names."""
SLASH_COMMANDS = ("help", "clear", "apply", "undo", "export", "open", "chat", "edit", "theme", "model", "compact",
                  "memory", "resume", "plan", "skills", "trust", "stats", "playbook", "gates", "hooks", "mcp",
                  "diff", "commands", "cost", "pick", "rewind")
"""The slash commands: ``/NAME`` must keep meaning the command, so no skill takes one of these names."""
BUILTIN_NAMES = frozenset(TOOL_NAMES) | frozenset(SLASH_COMMANDS)
"""Every name a skill may not shadow."""
TRUST_NOTICE = ("{count} repository skill(s) in .agent/skills are ignored because this repository is not "
                "trusted; `ljtui trust` enables them")
"""The one notice for a repository's skills while it is untrusted."""
LISTING_MORE = "(+{count} more)"
"""The last line of a prompt listing that did not fit."""


@dataclass
class SkillSet:
    """Every usable skill, and what the user should be told about the rest.

    Attributes:
        skills: Name → skill, after precedence.
        warnings: One line per problem (a skipped file, a refused folder, ignored repository skills).
        notes: One line per skill that replaced another of the same name.
        ignored: Entries of an untrusted repository's ``.agent/skills`` that were not read.
    """

    skills: dict[str, Skill] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)

    @property
    def names(self) -> tuple[str, ...]:
        """The skills' names, sorted."""
        return tuple(sorted(self.skills))

    def get(self, name: str) -> Skill | None:
        """The skill called exactly ``name`` (a leading ``/`` is allowed), or None."""
        return self.skills.get(name.removeprefix("/"))

    def prompt_listing(self, max_chars: int) -> str:
        """``name: description`` lines for a model prompt, sorted by name, at most ``max_chars`` long.

        When the skills do not all fit, as many as fit are listed and a last
        line says how many were left out.
        """
        lines = [f"{name}: {self.skills[name].description}" for name in self.names]
        kept: list[str] = []
        used = 0
        for index, line in enumerate(lines):
            cost = len(line) + (1 if kept else 0)
            left = len(lines) - index - 1
            tail = len(LISTING_MORE.format(count=left)) + 1 if left else 0
            if used + cost + tail > max_chars:
                return _with_more(kept, len(lines) - index, max_chars)
            kept.append(line)
            used += cost
        return "\n".join(kept)


def _with_more(kept: list[str], left: int, max_chars: int) -> str:
    """``kept`` and the "more" line, dropping listed lines until both fit."""
    while True:
        text = "\n".join([*kept, LISTING_MORE.format(count=left)])
        if len(text) <= max_chars:
            return text
        if not kept:
            return ""
        kept.pop()
        left += 1


def bundled_skills_dir() -> Path:
    """The skills shipped with ljtui: ``skills/`` beside the ``core`` package.

    Installed, ``ljtui/skills`` sits beside ``ljtui/core``; in a source
    checkout ``skills/`` sits beside ``core/``.
    """
    return Path(__file__).resolve().parent.parent / SKILLS_DIR


def load_skills(root: Path | None, env: Mapping[str, str] | None = None, *,
                bundled: Path | None = None, reserved: frozenset[str] = BUILTIN_NAMES,
                playbooks: bool = True) -> SkillSet:
    """Every skill from the bundled folder, the user's config dir and the repository.

    Args:
        root: The repository root, or None outside a repository.
        env: The environment (``XDG_CONFIG_HOME`` chooses the config dir); ``os.environ`` when None.
        bundled: The bundled skills folder (tests point it elsewhere).
        reserved: Names no skill may take: the tools and slash commands.
        playbooks: Offer the active playbooks as skills too.

    Returns:
        The skills and the warnings and notes for the user. Never raises.
    """
    found = SkillSet()
    sources: list[tuple[str, dict[str, Skill]]] = [
        (BUNDLED, _read_plain_source(bundled or bundled_skills_dir(), BUNDLED, found, reserved)),
        (USER, _read_plain_source(user_config_dir(env) / SKILLS_DIR, USER, found, reserved)),
    ]
    if root is not None:
        sources.append((REPOSITORY, _read_repository(root, env, found, reserved)))
    if playbooks:
        sources.append(("playbook", _read_playbooks(root, env, found)))
    for _source, skills in sources:
        for name, skill in skills.items():
            earlier = found.skills.get(name)
            if earlier is not None:
                found.notes.append(f"skill {name!r} from {skill.source} ({_shown(skill)}) replaces the "
                                   f"{earlier.source} one ({_shown(earlier)})")
            found.skills[name] = skill
    return found


def _read_playbooks(root: Path | None, env: Mapping[str, str] | None, found: SkillSet) -> dict[str, Skill]:
    """The active playbooks as skills; a malformed playbook is a warning naming its file and field."""
    from ljtui.core.playbooks.skills import playbook_skills

    skills, warnings = playbook_skills(root, env)
    found.warnings.extend(warnings)
    return skills


def _shown(skill: Skill) -> str:
    """Where a skill's file is, as the user sees it: repository skills relative to the repository."""
    if skill.source == REPOSITORY:
        parts = skill.path.parts
        index = len(parts) - 1 - parts[::-1].index(AGENT_DIR)
        return "/".join(parts[index:])
    return str(skill.path)


Reader = Callable[[str], bytes]
"""Reads one entry's skill file (``NAME.yaml`` or ``NAME/SKILL.md``) as bytes."""


def _read_plain_source(folder: Path, source: str, found: SkillSet, reserved: frozenset[str]) -> dict[str, Skill]:
    """The skills in a folder the user controls (bundled or config dir)."""
    try:
        entries = _list_entries(folder, follow=True)
    except FileNotFoundError:
        return {}
    except OSError as exc:
        found.warnings.append(f"{source} skills folder {folder} cannot be read ({type(exc).__name__})")
        return {}

    def read(relative: str) -> bytes:
        return read_regular(os.open(folder / relative, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK), MAX_SKILL_FILE_BYTES + 1)

    return _read_entries(entries, folder, folder, source, read, found, reserved)


def _read_repository(root: Path, env: Mapping[str, str] | None, found: SkillSet,
                     reserved: frozenset[str]) -> dict[str, Skill]:
    """The repository's ``.agent/skills``: refused through a link, ignored unless trusted."""
    shown = f"{AGENT_DIR}/{SKILLS_DIR}"
    try:
        folder = state_dir(root, SKILLS_DIR, create=False)
        entries = _list_entries(folder, follow=False)
    except StateDirUnsafe as exc:
        found.warnings.append(f"repository skills refused: {exc.message}")
        return {}
    except (FileNotFoundError, NotADirectoryError):
        return {}
    except OSError as exc:
        found.warnings.append(f"repository skills folder {shown} cannot be read ({type(exc).__name__})")
        return {}
    if not entries:
        return {}
    if not _trusted(root, env, found):
        found.ignored.extend(f"{shown}/{name}" for name, _ in entries)
        found.warnings.append(TRUST_NOTICE.format(count=len(entries)))
        return {}
    kept = []
    for name, is_dir in entries:
        if is_dir is None:
            found.warnings.append(f"repository skill {shown}/{name} refused: it is a symbolic link, and ljtui "
                                  f"reads repository skills only from real files and folders")
        else:
            kept.append((name, is_dir))

    def read(relative: str) -> bytes:
        return read_regular(open_state_file(root, SKILLS_DIR, *relative.split("/"), flags=os.O_RDONLY), MAX_SKILL_FILE_BYTES + 1)

    return _read_entries(kept, folder, Path(shown), REPOSITORY, read, found, reserved)


def _trusted(root: Path, env: Mapping[str, str] | None, found: SkillSet) -> bool:
    from ljtui.core.trust import TrustStore

    store = TrustStore.for_env(env)
    trusted = store.is_trusted(root)
    found.warnings.extend(store.warnings)
    return trusted


def _list_entries(folder: Path, *, follow: bool) -> list[tuple[str, bool | None]]:
    """``(name, is_dir)`` of the candidate skill entries in ``folder``, sorted by name.

    ``is_dir`` is None for a symbolic link when ``follow`` is false. Hidden
    entries, Python's own folders (``__pycache__``, in the installed bundled
    folder) and files that are not YAML are left out.
    """
    out: list[tuple[str, bool | None]] = []
    with os.scandir(folder) as listing:
        for count, entry in enumerate(listing):
            if count >= MAX_SCANNED_ENTRIES:
                break
            if entry.name.startswith(".") or entry.name in PYTHON_FOLDERS:
                continue
            if not follow and entry.is_symlink():
                out.append((entry.name, None))
            elif entry.is_dir(follow_symlinks=follow):
                out.append((entry.name, True))
            elif entry.name.endswith(YAML_SUFFIXES):
                out.append((entry.name, False))
    return sorted(out)


def _read_entries(entries: list[tuple[str, bool | None]], folder: Path, shown_folder: Path, source: str,
                  read: Reader, found: SkillSet, reserved: frozenset[str]) -> dict[str, Skill]:
    """Parse each entry; skip bad ones with a warning; report duplicates and the per-source limit.

    Warnings name files below ``shown_folder`` (``.agent/skills`` for the
    repository); each skill's ``path`` is below ``folder``, the real one.
    """
    if len(entries) > MAX_SKILLS_PER_SOURCE:
        found.warnings.append(f"{source} skills folder {shown_folder} holds more than {MAX_SKILLS_PER_SOURCE} "
                              f"skills; only the first {MAX_SKILLS_PER_SOURCE} by name are read")
        entries = entries[:MAX_SKILLS_PER_SOURCE]
    skills: dict[str, Skill] = {}
    for name, is_dir in entries:
        relative = f"{name}/{SKILL_MD}" if is_dir else name
        shown = shown_folder / relative
        parsed = _parse_entry(name, bool(is_dir), relative, read, found, f"{source} skill {shown}")
        if parsed is None:
            continue
        if parsed.name in reserved:
            found.warnings.append(f"{source} skill {shown}: name {parsed.name!r} is a tool or slash command; "
                                  f"skipped")
            continue
        if parsed.name in skills:
            first = shown_folder / skills[parsed.name].path.relative_to(folder)
            found.warnings.append(f"{source} skill {shown}: name {parsed.name!r} is already used by {first}; skipped")
            continue
        skills[parsed.name] = Skill(parsed.name, parsed.description, parsed.steps, source, folder / relative,
                                    parsed.instructions)
    return skills


def _parse_entry(name: str, is_dir: bool, relative: str, read: Reader, found: SkillSet,
                 label: str) -> ParsedSkill | None:
    try:
        raw = read(relative)
    except FileNotFoundError:
        found.warnings.append(f"{label}: missing (a skill folder needs a {SKILL_MD}); skipped")
        return None
    except StateDirUnsafe as exc:
        found.warnings.append(f"{label} refused: {exc.problem}")
        return None
    except OSError as exc:
        found.warnings.append(f"{label}: cannot be read ({exc.strerror or type(exc).__name__}); skipped")
        return None
    if len(raw) > MAX_SKILL_FILE_BYTES:
        found.warnings.append(f"{label}: larger than {MAX_SKILL_FILE_BYTES} bytes; skipped")
        return None
    try:
        text = raw.decode("utf-8")
        parsed = parse_skill_md(text, name) if is_dir else parse_yaml_skill(text)
    except UnicodeDecodeError:
        found.warnings.append(f"{label}: not UTF-8 text; skipped")
        return None
    except SkillFileError as exc:
        found.warnings.append(f"{label}: {exc}; skipped")
        return None
    found.warnings.extend(f"{label}: {note}" for note in parsed.notes)
    return parsed
