"""Rendering validation failures as text for a human or the planner's repair loop.

The excerpt under each failure is read from the file *now*, so the current
source always wins over evidence computed earlier. Plan text is quoted as
data inside fences, never as instructions. Text for a model takes its
secret-file policy: a file the policy calls secret is neither quoted nor
named as a candidate (its score alone would tell how close a guess came).
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable

from ljtui.core.edits.errors import EditError
from ljtui.core.edits.paths import resolve_target
from ljtui.core.edits.secret_targets import secret_rule_at
from ljtui.core.edits.validate import Reader, read_bytes
from ljtui.core.secret_files import SecretFiles

REPAIR_CONTEXT_LINES = 4
"""Lines shown on each side of the best candidate."""
REPAIR_MAX_EXCERPT_CHARS = 4_000


def _source_excerpt(root: Path, file: str, line: int, reader: Reader) -> str | None:
    target = resolve_target(root, file)
    if isinstance(target, EditError):
        return None
    try:
        data = reader(target.real)
    except OSError:
        return None
    if data is None:
        return None
    lines = data.decode("utf-8", "replace").split("\n")
    first = max(1, line - REPAIR_CONTEXT_LINES)
    last = min(len(lines), line + REPAIR_CONTEXT_LINES)
    width = len(str(last))
    text = "\n".join(f"{n:>{width}} | {lines[n - 1].rstrip(chr(13))}" for n in range(first, last + 1))
    return text[:REPAIR_MAX_EXCERPT_CHARS]


def format_failures_for_repair(errors: Iterable[EditError], root: Path, *, reader: Reader = read_bytes,
                               secrets: SecretFiles | None = None) -> str:
    """Describe each failure with its candidates and the current source around the best one.

    Args:
        errors: Named errors from parsing, validation or apply.
        root: Repository root the plan's paths are relative to.
        reader: How file bytes are read.
        secrets: The policy of the model the text goes to: files it calls
            secret (as named or where they resolve) are never read, quoted or
            named as candidates. ``None`` for text only the user sees.

    Returns:
        Plain text, one section per error, or an empty string when there are none.
    """
    def shown(file: str) -> bool:
        return secrets is None or secret_rule_at(secrets, root, file) is None

    sections = []
    for err in errors:
        head = f"- {err.kind}" + (f" in EDIT {err.block}" if err.block is not None else "")
        parts = [f"{head}: {err.message}"]
        candidates = [c for c in err.candidates if shown(c.file)]
        for cand in candidates:
            parts.append(f"  candidate {cand.file}:{cand.line} score {cand.score:.2f} ({cand.strength})")
        if err.file and candidates and shown(err.file):
            excerpt = _source_excerpt(root, err.file, candidates[0].line, reader)
            if excerpt is not None:
                parts.append(f"  current source of {err.file} around line {candidates[0].line}:")
                parts.append("  ```\n" + excerpt + "\n  ```")
        sections.append("\n".join(parts))
    return "\n\n".join(sections)
