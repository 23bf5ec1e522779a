"""Prompts of the read-only planner, built from parameters (PLN-8, PLN-11).

:class:`PlannerPromptVars` teaches the prompt a codebase's naming without a
fork. :func:`build_turn_prompt` lays out one turn: the request, the
transcript (older entries elided to fit the prompt budget, see
:mod:`ljtui.core.planner.budget`), then the instructions again, so the last
thing the model reads is never a tool result.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from ljtui.core.planner.budget import DEFAULT_PROMPT_BUDGET_TOKENS, ENTRY_SEPARATOR, Entry, fit_transcript
from ljtui.core.planner.headings import (
    INSTRUCTIONS_HEADING, REQUEST_HEADING, TOOL_RESULT_HEADING, TRANSCRIPT_HEADING,
)
from ljtui.core.sandbox import HANDBOOK_MOUNT


@dataclass(frozen=True)
class PlannerPromptVars:
    """The parts of the prompt that depend on the codebase."""

    project_intro: str = "You are planning a change to a software repository."
    """One or two sentences about the project."""
    path_example: str = "src/upload.py"
    """A repository-relative path, as the plan's ``- file:`` lines write it."""
    where_example: str = "Uploader.send (~88)"
    """A ``- where:`` value: qualified name and approximate line."""
    qualname_note: str = (
        "Name symbols by their qualified name: Class.method for methods, the bare name "
        "for module-level functions, Outer.Inner.method for nested classes."
    )
    """How the codebase's symbols are named in ``where`` and declarations."""
    decl_example: str = '{ "will_modify": ["Uploader.send"], "will_add": ["Uploader._retry"], "will_remove": [] }'
    """The declarations block that ends the plan."""


DEFAULT_PROMPT_VARS = PlannerPromptVars()
"""Prompt parameters for a codebase nobody described."""

TOOL_PROTOCOL = """\
You act by replying with exactly one fenced JSON object, and nothing runs until you do:

```json
{"action": "list_dir", "path": "."}
```

Actions:
- {"action": "list_dir", "path": "<dir>"} — entries of a folder ("." is the root).
- {"action": "read_file", "path": "<file>", "start_line": 1, "end_line": 200} — the file's text;
  the line numbers are optional (1-based, inclusive). Long files are cut; the result says how to read on.
- {"action": "grep", "pattern": "<RE2 regex>", "path": "<file or dir>"} — matching lines with
  line numbers. RE2 syntax: no backreferences, no lookaround, no nested repeats like (a+)+.
- {"action": "finish"} — ends the run. A reply holding the plan ends it by itself; finishing
  without a plan is a failure.

One action per reply. The harness runs it and shows you the output under the heading
"{heading}". Never write that heading yourself and never guess what a file contains:
a reply that invents tool output is thrown away whole, plan included."""

_SYSTEM = """\
{project_intro}

You are a read-only planner. You cannot change any file: you read the real source, then write
a plan of exact edits that a separate tool applies mechanically.

{handbook_part}The real source is the only authority on what to change: copy `old` text from
what read_file showed you, byte for byte, never from memory.

{tool_protocol}

When you know enough, reply with the plan and nothing else:

### EDIT 1

- file: `{path_example}`
- where: `{where_example}` — what changes and why

```old
<exact text from the current file, enough lines to occur exactly once>
```

```new
<the replacement text>
```

One sentence on why.

```json
{decl_example}
```

Rules:
- `old` must occur exactly once in the file; include neighbouring lines until it does. Keep its
  indentation and blank lines exactly. An empty `old` creates a new file that must not exist yet.
- Number EDIT blocks 1, 2, 3 … top-down; several blocks on one file apply in order.
- Paths are relative to the repository root; never absolute, never `..`.
- {qualname_note}
- End the plan with one ```json block declaring will_modify, will_add and will_remove, and
  close every fence."""

_HANDBOOK = """\
A handbook is mounted read-only at `{mount}/`. It is an index of locations: it finds mirrored
implementations, every read and write of a piece of state, and the places where subsystems
touch, which plain text search misses. Use it to decide which files to read, not what to write.

"""

_INSTRUCTIONS = """\
{heading_instructions}

Request: {request}

Turn {turn} of {max_turns}. Reply with exactly one fenced JSON action, or with the complete plan
(### EDIT blocks and the final ```json declarations). Do not write "{heading}" and do not
invent file contents: only the harness reports tool output."""

FABRICATION_NOTE = (
    "Your previous reply was rejected whole, including any plan in it: outside a code fence it wrote "
    f"a heading like '{TOOL_RESULT_HEADING}' that only the harness writes, so what followed was "
    "invented. Ask for one tool call and wait for its real result."
)
"""Told to the model after a reply that fabricated tool results."""

NO_ACTION_NOTE = (
    "Your previous reply had no action and no plan. Reply with one fenced JSON object such as "
    '```json\n{"action": "read_file", "path": "README.md"}\n``` or with the plan.'
)
"""Told to the model after a reply with neither an action nor a plan."""

MALFORMED_NOTE = (
    "Your action was not run: {error}. Send one fenced JSON object such as "
    '```json\n{{"action": "list_dir", "path": "."}}\n```.'
)
"""Told to the model after a reply whose action JSON is unusable."""

EXTRA_ACTIONS_NOTE = "Only the first action of your reply ran ({count} more ignored): send one per reply."
"""Appended to a tool result when a reply held several actions."""

_REPAIR = """\
The plan was checked against the current files and was not applied. Fix every problem below and
reply with the complete corrected plan (all EDIT blocks, renumbered from 1, and the declarations).
The current source shown here wins over anything you read earlier; read more files if you need to.
Repair round {round} of {max_rounds}.

{problems}"""


def build_planner_system_prompt(vars: PlannerPromptVars = DEFAULT_PROMPT_VARS, *, handbook: bool = False) -> str:
    """The system prompt: role, tool protocol and plan format."""
    return _SYSTEM.format(
        project_intro=vars.project_intro,
        handbook_part=_HANDBOOK.format(mount=HANDBOOK_MOUNT) if handbook else "",
        tool_protocol=TOOL_PROTOCOL.replace("{heading}", TOOL_RESULT_HEADING),
        path_example=vars.path_example,
        where_example=vars.where_example,
        decl_example=vars.decl_example,
        qualname_note=vars.qualname_note,
    )


def build_instructions(request: str, turn: int, max_turns: int) -> str:
    """The reminder that closes every turn's prompt."""
    return _INSTRUCTIONS.format(request=request, turn=turn, max_turns=max_turns, heading=TOOL_RESULT_HEADING,
                                heading_instructions=INSTRUCTIONS_HEADING)


def build_turn_prompt(
    request: str,
    transcript: Sequence[Entry],
    turn: int,
    max_turns: int,
    *,
    system_chars: int = 0,
    budget_tokens: int = DEFAULT_PROMPT_BUDGET_TOKENS,
) -> str:
    """One turn's user message: request, transcript, then the instructions again.

    Args:
        request: what the user asked for.
        transcript: the entries so far, oldest first.
        turn: the turn about to be played, from 1.
        max_turns: the turn budget.
        system_chars: characters of the system prompt sent with it (counted in the budget).
        budget_tokens: estimated tokens the system prompt and this message may reach together.
    """
    head = [f"{REQUEST_HEADING}\n\n{request}", TRANSCRIPT_HEADING]
    if not transcript:
        head.append("(nothing yet: start by looking at the repository)")
    tail = build_instructions(request, turn, max_turns)
    fixed = system_chars + sum(len(part) + len(ENTRY_SEPARATOR) for part in head) + len(tail)
    entries = fit_transcript(transcript, fixed, budget_tokens)
    return ENTRY_SEPARATOR.join([*head, *(e.render() for e in entries), tail])


def build_repair_note(problems: str, round_: int, max_rounds: int) -> str:
    """What the model reads after its plan failed the check."""
    return _REPAIR.format(problems=problems, round=round_, max_rounds=max_rounds)
