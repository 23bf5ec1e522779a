"""System prompt of the conversation agent.

The prompt is built once per session and reused unchanged, so that it stays
a byte-stable prefix the provider can cache.
"""

from __future__ import annotations

BASE_SYSTEM_PROMPT = """\
You are ljtui, a careful coding agent working in the user's repository at {repo_name}.
Make precise, reviewable, verifiable changes. Read before you change; never
invent file contents or tool results; say plainly what you did not verify.
"""


def build_system_prompt(repo_name: str) -> str:
    """The session's system prompt for the repository named ``repo_name``."""
    return BASE_SYSTEM_PROMPT.format(repo_name=repo_name)
