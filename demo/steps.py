"""What the demo does and says: its request, its steps and their words.

The recorded model in ``script.yaml`` answers :data:`REQUEST` on the bundled
sample project. A new step goes into :data:`STEPS` in the order the user
meets it, with the model's words for it appended to the script.
"""

from __future__ import annotations

from ljtui.core.events import Event, Notice, PermissionRequested, TurnFailed, TurnFinished
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

INTRO = (
    "The ljtui demo, on a copy of the small Python project {project} in a new git repository. The model is "
    "a recording replayed offline (no key, no network); everything else is real: tool calls read the copy, "
    "the apply writes it, syntax checks run, undo restores it."
)
"""Shown first, above the first step."""

PLANNER_ORIGIN = "planner"
"""The origin of a plan the planner wrote (other plans come from files)."""
DONE_STATUS = "done"
"""The status of an apply that wrote every accepted block."""
SCRIPT_FAILURE = "script"
"""The failure kind of a model call the recording cannot answer."""


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


def _run_over(event: Event) -> bool:
    return isinstance(event, RunFinished)


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
        "change. The focus is back in the input box: go to the Diff pane with {keys[focus.diff]} and press "
        "{keys[review.undo]} to undo it (or type /undo); a dialog asks first.",
        again="Press {keys[focus.diff]} then {keys[review.undo]} (or type /undo) when you want to undo the apply.",
    ),
    Step(
        "undone",
        _undone,
        "undone: the files hold their bytes from before the apply again, and `git diff` in {repo} shows "
        "nothing. Next, the agent: a plain message goes to the conversation agent, which reads, searches, "
        "edits and runs commands with its tools, asking you before it writes or runs anything. Type a "
        "message (say, do the tests pass?) and press Enter.",
        again="Type a message and press Enter to see the agent at work.",
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
        "to unfold it); if you denied it, nothing ran and the model was told why. Last, a task plan for a "
        "bigger job: type /plan add a longest_word function with a test, and press Enter.",
        again="Type /plan and a goal (say, add a longest_word function with a test) and press Enter.",
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
        _run_over,
        "the run's end. Each task's status and time stay in the Plan pane, `git diff` in {repo} shows "
        "longest_word and its test, and the run is logged in .agent/events.jsonl (ljtui stats sums the "
        "runs up). That is the demo. {keys[app.quit]} quits; the copy stays in {repo}. To use ljtui on your "
        "own project, run it there with ANTHROPIC_API_KEY set (ljtui --help lists the other providers).",
    ),
)
"""The demo's stages, in order."""

RECORDING_ONLY = ("The demo's model is a recording of one session: it has no answer to other requests "
                  "(on your own project, a real model answers).")
"""Said when a message cannot be answered by the recording."""

DETOURS: tuple[Detour, ...] = (
    Detour(_declined, ""),
    Detour(_off_script, RECORDING_ONLY, "warning"),
)
"""Events off the demo's path; each is answered by a reminder of the current step."""
