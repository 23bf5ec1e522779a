"""docs/tools.md, written from the tool registry so the contract cannot drift from the code.

    python -m ljtui.core.agent.tools.docs > docs/tools.md
"""

from __future__ import annotations

import json

from ljtui.core.agent.tools import agent_tools

INTRO = """\
# The agent's tools

The conversation agent (a plain message in the app, or `ljtui run "…"`)
has these {count} tools. Each section is the tool's description and JSON
input schema exactly as the model receives them, then what ljtui adds:
whether the user is asked, and how a large result is cut. Every tool
works inside the repository only (paths are relative to its root; `..`,
absolute paths, symbolic links leading out, `.git` and `.agent` are
refused), never reads a secret file (`.env`, keys, `.git/config`; see
`security.allow_secret_files`), and answers a bad argument with an
`error: …` result the model reads, never an exception.

Writes (`write_file`, `edit_file`, `apply_patch`, `create_directory`) go
through the same atomic transaction as an applied plan, grouped per user
message: `/undo` reverts what the agent wrote in the last message.
Headless, a tool that asks is denied unless `ljtui run --allow write,bash`
(or `--yes`) allows it; each decision is a `permission_requested` /
`permission_decided` event.

`edit_file` and `apply_patch` do the same job in two edit formats, and a
model is offered the one it was trained on, as `agent.edit_tools` says:
`replace` offers `edit_file` (exact string replacement), `patch` offers
`apply_patch` (Codex patches), and `auto`, the default, offers
`apply_patch` to OpenAI's models (names starting with `gpt-`, `o1`, `o3`,
`o4` or `codex`, or holding `codex` or `gpt-oss`, whoever serves them) and
`edit_file` to every other (Claude, and local families such as Qwen, Llama
or Gemma). `write_file` and `create_directory` are always offered.

This file is generated: `python -m ljtui.core.agent.tools.docs > docs/tools.md`.
"""

def notes() -> dict[str, str]:
    """What ljtui adds to each tool's description: who is asked, how a large result is cut."""
    from ljtui.core.agent.memory import MAX_ENTRY_CHARS, MAX_MEMORY_BYTES
    from ljtui.core.agent.tools.playbooks import notes as playbook_notes
    from ljtui.core.agent.shell import HEAD_CHARS, TAIL_CHARS
    from ljtui.core.agent.web import MAX_SEARCH_RESULTS
    from ljtui.core.agent.web_http import MAX_BODY_BYTES, MAX_REDIRECTS
    from ljtui.core.gates.records import MAX_ITEMS
    from ljtui.core.outline import MAX_MATCHES, MAX_OUTLINE_SYMBOLS
    from ljtui.core.planner.grep import GREP_MAX_HITS
    from ljtui.core.planner.tools import LIST_MAX_ENTRIES, READ_MAX_CHARS

    asks = ("Asks: the dialog shows the diff; allow once, allow `{tool}` for the session, or deny "
            "(the model is told why).")
    return {
        "read_file": f"Does not ask. A long file is cut at {READ_MAX_CHARS:,} characters; the result names "
                     "the `start_line` that reads on.",
        "list_files": f"Does not ask. At most {LIST_MAX_ENTRIES:,} entries; the result says how many more "
                      "there are.",
        "grep_files": f"Does not ask. At most {GREP_MAX_HITS} matching lines (the rest counted); the search is "
                      "bounded in time and memory, and a pattern RE2 cannot run is refused with the reason.",
        "get_outline": f"Does not ask. At most {MAX_OUTLINE_SYMBOLS} definitions, ranked and cut to a token "
                       "budget; the last line says what was left out.",
        "find_symbol": f"Does not ask. At most {MAX_MATCHES} matches, best first.",
        "write_file": asks.format(tool="write_file"),
        "edit_file": asks.format(tool="edit_file") + " When `old` does not occur exactly once, the error "
                     "lists the nearest candidates with their lines.",
        "apply_patch": asks.format(tool="apply_patch") + " One question for the whole patch, with the diff of "
                       "every file it touches; its files are written in one transaction, all or none. A hunk "
                       "whose context is not found, or found more than once, is an error naming the file and the "
                       "hunk, with the nearest candidates; nothing is written.",
        "create_directory": asks.format(tool="create_directory"),
        "bash": "Asks with the command, the folder and the time limit; a dangerous command can only be "
                "allowed once, and is asked every time. Output streams to the Conversation as it comes; "
                f"the model gets the first {HEAD_CHARS:,} and the last {TAIL_CHARS:,} characters.",
        "web_search": "Does not ask. Needs `agent.web_search_url` (a SearXNG-style endpoint); without one "
                      f"the result is `unavailable: …`. At most {MAX_SEARCH_RESULTS} results.",
        "web_fetch": f"Does not ask. http(s) only, at most {MAX_REDIRECTS} redirects (each checked again), "
                     f"{MAX_BODY_BYTES // (1024 * 1024)} MB after decompression, `agent.web_timeout` for the "
                     "whole call; no cookies, proxies or keys from the environment.",
        "propose_commit": "Does not ask: it only keeps the message. After the user applies the layer's change, "
                          "they are asked whether to commit exactly the files written with it, as text they may "
                          "edit; the commit runs no hook or signing program of the repository.",
        "save_memory": "Asks: the dialog shows the exact text; allow once, allow `save_memory` for the session, "
                       "or deny (the model is told why). It appends to `.agent/memory.md`, which later sessions "
                       f"read as notes, not instructions. At most {MAX_ENTRY_CHARS:,} characters per entry and "
                       f"{MAX_MEMORY_BYTES // 1024} KB per file; `/memory` shows it.",
        "gate_status": "Does not ask. Reads `.agent/gates/` and the open run; the same text is in the system "
                       "prompt's tail while a gate is in focus.",
        "gate_propose": f"Does not ask: it writes `.agent/gates/<id>.md` with `confirmed_by_user: false`. At most "
                        f"{MAX_ITEMS} items; the engine computes R and the level from the factors and the "
                        "gate's record.",
        "gate_confirm": "Always asks the user: the dialog shows R, the factors and every command; headless it is "
                        "denied unless `--yes`. The confirmation is kept in the user's state dir, bound to the "
                        "items, factors and level.",
        "gate_start": "Always asks the user. At L2 and above every agent's writes and commands then happen in "
                      "`.agent/workspace/<run>/tree` until delivery.",
        "gate_check": "Does not ask (the user confirmed the commands): the engine runs the command in the staging "
                      f"tree with `agent.bash_timeout` and no API keys; the model gets the exit code, the "
                      f"duration and the first {HEAD_CHARS:,} and last {TAIL_CHARS:,} characters.",
        "gate_verify": "Does not ask. Starts a verifier agent with read-only tools and `gate_check`; its checks "
                       "are recorded with its id.",
        "gate_finish": "`exempt` asks the user; `pass` is refused while a required item lacks evidence, failed "
                       "or is stale, and at L3 without a verifier's check. Only the starter may finish.",
        "gate_deliver": "Refused until the gate passes (after two refusals the user decides); then the staged "
                        "change opens as one EDIT plan and the apply asks the user.",
        **playbook_notes(),
    }


NUMBERS = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
           "seventeen eighteen nineteen").split()
TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()


def in_words(number: int) -> str:
    """``number`` (below a hundred) as the intro writes it: ``twenty-seven``; digits from a hundred on."""
    if number < len(NUMBERS):
        return NUMBERS[number]
    if number >= 100:
        return str(number)
    tens, ones = divmod(number, 10)
    return TENS[tens - 2] + (f"-{NUMBERS[ones]}" if ones else "")


def render() -> str:
    """The whole of docs/tools.md."""
    specs = agent_tools().specs
    parts, added = [INTRO.format(count=in_words(len(specs)))], notes()
    for spec in specs:
        parts.append(f"\n## `{spec.name}`\n\n{spec.description}\n\n{added[spec.name]}\n\n"
                     f"```json\n{json.dumps(spec.input_schema, indent=2)}\n```\n")
    return "".join(parts)


if __name__ == "__main__":
    print(render(), end="")
