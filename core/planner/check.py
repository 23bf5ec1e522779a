"""Checking a planner's plan with the patcher's parser and validator (EDIT-11).

The planner never applies anything; it asks the patcher whether the plan
would apply to the repository as it is now. Failures come back as one
line each plus a feedback text for the repair loop: the reason, the
candidate locations and the current source around them.

Everything here goes back to the model, so the check takes the session's
secret-file policy: a block on a file the policy calls secret (as written
or through a symlink) fails with ``SecretTarget`` before the file is read,
whether its ``old`` would match or not, and no feedback quotes such a file
(:mod:`ljtui.core.edits.secret_targets`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from ljtui.core.edits.errors import EditError
from ljtui.core.edits.paths import resolve_target
from ljtui.core.edits.plan_format import EditPlan, Declarations, PlanParseError, parse_plan
from ljtui.core.edits.repair import format_failures_for_repair
from ljtui.core.edits.secret_targets import secret_rule_at
from ljtui.core.edits.validate import read_bytes, validate_plan
from ljtui.core.secret_files import SecretFiles

HINT_CONTEXT_LINES = 8
"""Lines shown on each side of a ``where`` hint when an anchor has no candidate."""
HEAD_LINES = 20
"""Lines shown from the top of a file when an anchor has neither candidate nor hint."""

MISSING_DECLARATIONS = (
    "MissingDeclarations: the plan has no final ```json block declaring will_modify, will_add "
    "and will_remove (lists of qualified names); add it after the last EDIT block"
)


@dataclass(frozen=True)
class PlanCheck:
    """The verdict on one plan.

    Attributes:
        ok: the plan parses, declares its symbols and every block applies.
        declarations: the parsed declarations, when the plan parses.
        errors: one line per problem.
        feedback: the problems with candidates and current source, for the model.
        blocks: how many EDIT blocks the plan holds.
    """

    ok: bool
    declarations: Declarations | None = None
    errors: tuple[str, ...] = ()
    feedback: str = ""
    blocks: int = 0
    plan: EditPlan | None = field(default=None, compare=False, repr=False)


PlanChecker = Callable[[str, Path, SecretFiles], PlanCheck]
"""How a plan text is checked against a repository root, under the session's secret-file policy."""


def parse_declarations(plan: str) -> Declarations | None:
    """The plan's ``will_modify``/``will_add``/``will_remove``, or None.

    None when the plan does not parse or carries no declaration block.
    """
    try:
        declarations = parse_plan(plan).declarations
    except PlanParseError:
        return None
    return declarations if declarations.present else None


def check_plan(text: str, root: Path, secrets: SecretFiles = SecretFiles()) -> PlanCheck:
    """Parse ``text`` and validate it against the files under ``root``.

    Args:
        text: the plan's Markdown.
        root: the repository the plan is for.
        secrets: the session's secret-file policy (the default: no file
            allowed); blocks on the files it calls secret are refused unread.
    """
    try:
        plan = parse_plan(text)
    except PlanParseError as exc:
        return _failed(list(exc.errors), root, None, None, secrets)
    report = validate_plan(plan, root, secrets=secrets)
    errors = report.errors
    extra = [] if plan.declarations.present else [MISSING_DECLARATIONS]
    if errors or extra:
        return _failed(errors, root, plan, plan.declarations, secrets, extra)
    return PlanCheck(True, plan.declarations, (), "", len(plan.blocks), plan)


def _failed(
    errors: list[EditError],
    root: Path,
    plan: EditPlan | None,
    declarations: Declarations | None,
    secrets: SecretFiles,
    extra: list[str] | None = None,
) -> PlanCheck:
    lines = tuple(str(e) for e in errors) + tuple(extra or ())
    sections = [format_failures_for_repair(errors, root, secrets=secrets)] if errors else []
    sections.extend(_hint_excerpts(errors, root, plan, secrets))
    sections.extend(f"- {line}" for line in extra or ())
    blocks = len(plan.blocks) if plan else 0
    return PlanCheck(False, declarations, lines, "\n\n".join(s for s in sections if s), blocks, plan)


def _hint_excerpts(errors: list[EditError], root: Path, plan: EditPlan | None, secrets: SecretFiles) -> list[str]:
    """Current source for failed anchors that came back without candidates (never of a secret file)."""
    if plan is None:
        return []
    by_number = {b.number: b for b in plan.blocks}
    out = []
    for err in errors:
        block = by_number.get(err.block) if err.block is not None else None
        if err.kind != "AnchorNotFound" or err.candidates or block is None:
            continue
        hint = block.hint_line
        first = max(1, hint - HINT_CONTEXT_LINES) if hint else 1
        last = hint + HINT_CONTEXT_LINES if hint else HEAD_LINES
        excerpt = _excerpt(root, block.file, first, last, secrets)
        if excerpt:
            out.append(f"  current source of {block.file}, lines {first}-{last} (EDIT {block.number} found no "
                       f"similar text; read the file again):\n  ```\n{excerpt}\n  ```")
    return out


def _excerpt(root: Path, file: str, first: int, last: int, secrets: SecretFiles) -> str:
    if secret_rule_at(secrets, root, file) is not None:
        return ""
    target = resolve_target(root, file)
    if isinstance(target, EditError):
        return ""
    try:
        data = read_bytes(target.real)
    except OSError:
        return ""
    if data is None:
        return ""
    lines = data.decode("utf-8", "replace").split("\n")[first - 1:last]
    width = len(str(last))
    return "\n".join(f"{n:>{width}} | {text.rstrip(chr(13))}" for n, text in enumerate(lines, start=first))
