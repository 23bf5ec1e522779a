"""What the demo does and says: its request, its steps and their words.

The recorded model in ``script.yaml`` answers :data:`REQUEST` on the bundled
sample project. A new step goes into :data:`STEPS` in the order the user
meets it, with the model's words for it appended to the script.
"""

from __future__ import annotations

from typing import Any

from ljtui.core.approval import YES
from ljtui.core.events import ApprovalDecided, Event, Notice, PermissionRequested, TurnFailed, TurnFinished
from ljtui.core.gates.events import GateDelivered, GateProposed, GateStarted
from ljtui.core.playbooks.events import PlaybookSaved, PlaybookStatusChanged
from ljtui.core.review.events import ApplyFinished, PlanOpened, UndoFinished
from ljtui.core.tasks.events import RunFinished, TaskPlanProposed, TaskPlanUpdated
from ljtui.demo.tour import Detour, Step

LABEL = "demo (scripted)"
"""How the status bar names the demo's model."""

REQUEST = (
    "count_words in wordstats/counting.py is wrong for real text: two spaces count an extra word, "
    "a line break joins two words into one, and an empty text has one word. Fix it and add tests."
)
"""The request the demo sends for the user; ``script.yaml`` holds the recorded planner's answer."""
PLAN_GOAL = "add longest_word"
"""The goal the guide suggests for ``/plan``; the recording's task plan answers any goal."""
RECALL_GOAL = "add shortest_word"
"""The similar goal that recalls the playbook saved from :data:`PLAN_GOAL`'s run once it is active."""
GATE_MESSAGE = "make top_words ignore punctuation"
"""The message the guide suggests at the gate step; the recording answers any message there."""

INTRO = (
    "The ljtui demo, on a copy of the small Python project {project} in a new git repository. The model is "
    "a recording replayed offline (no key, no network); everything else is real: tool calls read the copy, "
    "the apply writes it, syntax checks run, undo restores it. The copy is trusted until the demo ends, so "
    "that the playbook it saves may be offered to the model."
)
"""Shown first, above the first step."""

PLANNER_ORIGIN = "planner"
"""The origin of a plan the planner wrote (other plans come from files)."""
DONE_STATUS = "done"
"""The status of an apply that wrote every accepted block."""
SCRIPT_FAILURE = "script"
"""The failure kind of a model call the recording cannot answer."""
RUN_DONE = "done"
"""The status of a task-plan run whose every task is done."""
RUN_REJECTED = "rejected"
"""The status of a task-plan run the user rejected."""
RUN_FAILED = "failed"
"""The status of a task-plan run that stopped (in the demo: a goal the recording has no plan for)."""
ACTIVE = "active"
"""The status of a promoted playbook."""
OFFER_KIND = "playbook_offer"
"""The question that keeps a finished run's procedure as a draft playbook."""
GATE_ORIGIN = "gate "
"""How the origin of a gate's delivery plan begins (the gate's id follows)."""


def _planner_plan_opened(event: Event) -> bool:
    return isinstance(event, PlanOpened) and event.origin == PLANNER_ORIGIN


def _applied(event: Event) -> bool:
    return isinstance(event, ApplyFinished) and event.status == DONE_STATUS


def _undone(event: Event) -> bool:
    return isinstance(event, UndoFinished) and event.error is None and bool(event.files)


def _declined(event: Event) -> bool:
    """The review's own notice that a dialog was cancelled (it follows the decision, so the reminder comes last)."""
    if not isinstance(event, Notice):
        return False
    from ljtui.core.review.service import APPLY_CANCELLED, UNDO_CANCELLED  # loaded by then: a dialog was shown

    return event.message in (APPLY_CANCELLED, UNDO_CANCELLED)


def _asks_to_run_a_command(event: Event) -> bool:
    return isinstance(event, PermissionRequested) and event.tool == "bash"


def _answered(event: Event) -> bool:
    return isinstance(event, TurnFinished)


def _plan_proposed(event: Event) -> bool:
    return isinstance(event, TaskPlanProposed)


def _replanned(event: Event) -> bool:
    return isinstance(event, TaskPlanUpdated)


def _run_done(event: Event) -> bool:
    return isinstance(event, RunFinished) and event.status == RUN_DONE


def _run_stopped(event: Event) -> bool:
    return isinstance(event, RunFinished) and event.status == RUN_FAILED


def _offer_declined(event: Event) -> bool:
    return isinstance(event, ApprovalDecided) and event.request == OFFER_KIND and event.choice != YES


def _playbook_saved(event: Event) -> bool:
    return isinstance(event, PlaybookSaved)


def _saved_playbook(event: Event) -> dict[str, Any]:
    """The saved playbook's id and file, for the words of the steps after it."""
    assert isinstance(event, PlaybookSaved)
    return {"playbook": event.id, "playbook_path": event.path}


def _playbook_promoted(event: Event) -> bool:
    return isinstance(event, PlaybookStatusChanged) and event.to == ACTIVE


def _recalled_run_over(event: Event) -> bool:
    return isinstance(event, RunFinished) and event.status in (RUN_DONE, RUN_REJECTED)


def _gate_proposed(event: Event) -> bool:
    return isinstance(event, GateProposed)


def _proposed_gate(event: Event) -> dict[str, Any]:
    """The proposed gate's id, for the words of the steps after it."""
    assert isinstance(event, GateProposed)
    return {"gate": event.gate}


def _gate_started(event: Event) -> bool:
    return isinstance(event, GateStarted) and event.staged


def _delivery_opened(event: Event) -> bool:
    return isinstance(event, PlanOpened) and event.origin.startswith(GATE_ORIGIN)


def _delivered(event: Event) -> bool:
    return isinstance(event, GateDelivered) and event.applied


def _delivery_offer_answered(event: Event) -> bool:
    """The delivered gate's playbook offer was answered (either way)."""
    return isinstance(event, ApprovalDecided) and event.request == OFFER_KIND


def _off_script(event: Event) -> bool:
    return isinstance(event, TurnFailed) and event.error == SCRIPT_FAILURE


STEPS: tuple[Step, ...] = (
    Step(
        "request",
        None,
        "the request. The demo sends it for you, as if you had typed it; the read-only planner lists, greps "
        "and reads the project for real, then writes a plan.",
    ),
    Step(
        "review",
        _planner_plan_opened,
        "review. The plan is in the Diff pane, which has the focus ({keys[focus.diff]} returns to it, "
        "{keys[pane.maximize]} enlarges it): {keys[review.next]}/{keys[review.prev]} pick a block, "
        "{keys[review.toggle]} rejects or accepts it. Press {keys[review.apply]} to apply the accepted blocks; "
        "a dialog asks first.",
        again="Press {keys[review.apply]} in the Diff pane when you want to apply the plan.",
    ),
    Step(
        "result",
        _applied,
        "the result. The files above were written and their syntax checked; `git diff` in {repo} shows the "
        "change. The focus stays in the Diff pane: press {keys[review.undo]} to undo it (or type /undo in the "
        "input box, {keys[focus.prompt]}); a dialog asks first.",
        again="Press {keys[focus.diff]} then {keys[review.undo]} (or type /undo) when you want to undo the apply.",
    ),
    Step(
        "undone",
        _undone,
        "undone: the files hold their bytes from before the apply again, and `git diff` in {repo} shows "
        "nothing. Next, the agent: a plain message goes to the conversation agent, which reads, searches, "
        "edits and runs commands with its tools, asking you before it writes or runs anything. Press "
        "{keys[focus.prompt]} to go to the input box, type a message (say, do the tests pass?) and press Enter.",
        again="Press {keys[focus.prompt]}, type a message and press Enter to see the agent at work.",
        chat=True,
    ),
    Step(
        "permission",
        _asks_to_run_a_command,
        "a permission. The agent wants to run a command: the dialog shows it, the folder it runs in and its "
        "time limit. Enter allows it once, s allows bash for the rest of the session, Escape denies it (the "
        "model is told why). Nothing runs until you choose.",
    ),
    Step(
        "ran",
        _answered,
        "the agent's turn. If you allowed it, the command ran for real in {repo}: its output streamed into "
        "the Conversation and is now folded under the ▸ bash line (click it, or Tab to it and press Enter, "
        "to unfold it); if you denied it, nothing ran and the model was told why. Next, a task plan for a "
        "bigger job: type /plan " + PLAN_GOAL + " and press Enter.",
        again="Type /plan and a goal (say, " + PLAN_GOAL + ") and press Enter.",
        plan=True,
    ),
    Step(
        "proposed",
        _plan_proposed,
        "the task plan, in the Plan pane, which has the focus: one model call split the goal into tasks "
        "with dependencies, and nothing runs yet. {keys[plan.next]}/{keys[plan.prev]} select a task, "
        "{keys[plan.edit]} edits it, {keys[plan.add]} adds one, {keys[plan.delete]} deletes it, "
        "{keys[plan.move_down]}/{keys[plan.move_up]} move it (the recording knows only this plan, so run it as "
        "proposed here). {keys[plan.approve]} runs it ({keys[plan.approve_writes]}: without asking before "
        "each file write), {keys[plan.reject]} rejects it. Tasks whose "
        "dependencies are done run side by side; each edit and command still asks, naming its task.",
        again="Press {keys[plan.approve]} in the Plan pane to run the plan.",
    ),
    Step(
        "replanned",
        _replanned,
        "a replan. Task 3's agent added longest_word, saw that the plan had no test for it, and called "
        "update_task_plan: the tasks not started yet were replaced, the finished ones kept. The Plan pane "
        "counts it (replans 1/3 in its title) and shows the change under the tasks ({keys[plan.history]} "
        "lists every replan). Allow the next questions to let the run finish.",
    ),
    Step(
        "planned",
        _run_done,
        "the run's end. Each task's status and time stay in the Plan pane, `git diff` in {repo} shows "
        "longest_word and its test, and the run is logged in .agent/events.jsonl (ljtui stats sums the runs "
        "up). A run that worked is worth repeating: the dialog offers to keep its steps as a draft playbook. "
        "Press Enter to save it.",
    ),
    Step(
        "saved",
        _playbook_saved,
        "a draft playbook: {playbook_path} holds the plan's steps as its SOP, in plain Markdown. A draft is "
        "never offered to the model; only you can make it active. Type /playbook promote {playbook} and press "
        "Enter (a dialog shows the playbook and asks).",
        again="Type /playbook promote {playbook} and press Enter.",
        learn=_saved_playbook,
    ),
    Step(
        "promoted",
        _playbook_promoted,
        "an active playbook: it is now offered to the model as the skill playbook-{playbook}, and a similar "
        "goal recalls it. Type /plan " + RECALL_GOAL + " and press Enter.",
        again="Type /plan " + RECALL_GOAL + " and press Enter.",
        plan=True,
    ),
    Step(
        "recalled",
        _plan_proposed,
        "a recalled playbook: the goal matched {playbook} (the notice above), so its SOP is the proposed "
        "task plan, with no planning call. {keys[plan.approve]} runs it, and its outcome becomes the "
        "playbook's record (/playbook show {playbook}); {keys[plan.reject]} rejects it.",
        again="Press {keys[plan.approve]} to run the recalled plan, or {keys[plan.reject]} to reject it.",
    ),
    Step(
        "gated",
        _recalled_run_over,
        "last, a delivery gate: checks that must pass before a change reaches your files. Type a message "
        "(say, " + GATE_MESSAGE + ") and press Enter.",
        again="Type a message and press Enter to see a gated change.",
        chat=True,
    ),
    Step(
        "gate",
        _gate_proposed,
        "a gate. The model proposed one: the dialog shows its check (the command it runs: the project's "
        "tests) and the risk R the engine computed from the model's factors, which sets its level. Only you "
        "can confirm it: press Enter, then Enter again in the next dialog to start it.",
        learn=_proposed_gate,
    ),
    Step(
        "staged",
        _gate_started,
        "a gated run: the agent's writes and commands now land in a staging copy of the project, not in your "
        "files, until the gate passes. The Gates pane follows the check. Allow the edits (Enter).",
    ),
    Step(
        "delivery",
        _delivery_opened,
        "the delivery. The model's first try, before any check, was refused (the engine's warning names the "
        "gate and the missing item) and your files stayed untouched. Then the engine ran the check, the "
        "project's tests, for real in the staging copy (the Gates pane shows it passed), and the model "
        "finished the gate with pass: the staged change is one EDIT plan in the Diff pane. Enter in the apply "
        "dialog writes it to your files.",
        again="Type /gates deliver and press Enter to try again.",
    ),
    Step(
        "delivered",
        _delivered,
        "delivered: the change is in your files, written by the normal apply (/undo reverts it). A gate that "
        "passed is worth repeating too: Enter keeps it as a draft playbook, Escape does not.",
    ),
    Step(
        "end",
        _answered,
        "that is the demo. The Gates pane ({keys[focus.gates]}) keeps the gate's history; in the copy, "
        "`ljtui gates show {gate}` prints it. {keys[app.quit]} quits; the copy stays in {repo}. To use ljtui "
        "on your own project, run it there with ANTHROPIC_API_KEY set (ljtui --help lists the other "
        "providers).",
        between_turns=_delivery_offer_answered,
    ),
)
"""The demo's stages, in order."""

RECORDING_ONLY = ("The demo's model is a recording of one session: it has no answer to other requests "
                  "(on your own project, a real model answers).")
"""Said when a message cannot be answered by the recording."""

NOTHING_KEPT = ("Nothing was kept, so there is no playbook to promote and recall: quit ({keys[app.quit]}) and run "
                "ljtui --demo again to see those steps.")
"""Said when the user declines the first playbook offer."""

DELIVERY_CANCELLED = ("You cancelled the delivery: nothing was written to your files, and the staged change is kept "
                      "in the staging copy.")
"""Said when the user cancels the delivery's apply dialog."""

DETOURS: tuple[Detour, ...] = (
    Detour(_declined, DELIVERY_CANCELLED, during=("delivery",)),
    Detour(_declined, ""),
    Detour(_off_script, RECORDING_ONLY, "warning"),
    Detour(_run_stopped, RECORDING_ONLY, "warning", during=("promoted",)),
    Detour(_offer_declined, NOTHING_KEPT, during=("planned",)),
)
"""Events off the demo's path; each is answered by a reminder of the current step."""
