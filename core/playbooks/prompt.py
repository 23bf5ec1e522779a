"""The system prompt's playbook section (PB-8): part of the stable, cached prefix."""

from __future__ import annotations

PLAYBOOK_PROMPT = """\
# Playbooks

Playbooks are procedures that worked before in this kind of task, with the pitfalls met on the way. They live in
.agent/playbooks/ (this repository) and in the user's own library. Active ones are also listed as skills named
playbook-<id>.

- Before you plan a task of more than a few steps, call playbook_search with a few keywords (and tags, if you know
  them). Read a promising match with playbook_get, follow its SOP, heed its pitfalls, and say which playbook you
  followed. Adapt it where the task differs; do not follow a draft or deprecated playbook as if it were proven.
- After using a playbook, once the outcome is known (tests pass, or the approach failed), call playbook_feedback
  with ok or fail. A playbook that keeps failing is demoted automatically.
- After a success worth repeating, save it with playbook_save: when to use it, the steps that worked (SOP), the
  pitfalls you met, how you verified the result and the evidence. It is saved as a draft; only the user can make it
  active (playbook_promote asks them), so never claim a playbook is active unless it is."""
"""The section, byte-stable: it goes after the base instructions, before anything about the repository."""
