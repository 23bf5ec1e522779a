"""What the app does with the plan under review: the Diff pane's actions,
their confirmation dialogs, and the messages that come back from workers."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from ljtui.tui.result_view import apply_lines, undo_lines
from ljtui.tui.screens.confirm import ConfirmScreen, ExportScreen

if TYPE_CHECKING:
    from ljtui.core.review.session import Review
    from ljtui.tui.app import LjtuiApp
    from ljtui.tui.messages import (
        ApplyFinished, ApplyProgressed, PlanExported, ReviewChanged, ReviewFailed, UndoFinished, UndoPreviewed,
    )

EXPORT_DIR = ".agent/plans"
NO_REVIEW = "No plan is under review: type a request, or open a plan with /open PLAN.md."


class ReviewActions:
    """Carries out review actions for an app, always through its bridge."""

    def __init__(self, app: LjtuiApp, *, watch: bool) -> None:
        self.app = app
        self.watch = watch

    @property
    def _conv(self):
        return self.app.main_screen.conversation

    def _say(self, lines: list[tuple[str, str]]) -> None:
        for message, level in lines:
            self._conv.add_notice(message, level)

    # --- requests from the Diff pane, slash commands and the palette -------------

    def request(self, action: str, number: int | None = None) -> None:
        """Run a Diff pane action by name."""
        bridge = self.app.bridge
        if action == "undo":
            self.confirm_undo()
            return
        if bridge.review is None:
            self._conv.add_notice(NO_REVIEW, "warning")
            return
        if action == "toggle" and number is not None:
            bridge.change_review(lambda review: review.toggle(number))
        elif action == "accept_all":
            bridge.change_review(lambda review: _set_all(review, True))
        elif action == "reject_all":
            bridge.change_review(lambda review: _set_all(review, False))
        elif action == "apply":
            self.confirm_apply()
        elif action == "export":
            stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(self.app.clock.now()))
            self.app.push_screen(ExportScreen(f"{EXPORT_DIR}/plan-{stamp}.md"), self._export_to)

    def confirm_apply(self) -> None:
        review = self.app.bridge.review
        if review is None:
            self._conv.add_notice(NO_REVIEW, "warning")
            return
        chosen = review.accepted
        if not chosen:
            self._conv.add_notice("No block is accepted: press space on a block, or A to accept all.", "warning")
            return
        shown = self.app.main_screen.diff_pane.blocks
        for state, advice in (("failed", "they do not apply to the current files: reject them (space) "
                                         "or fix the plan"),
                              ("stale", "their files changed on disk: check the new diff and press space "
                                        "to accept it again")):
            numbers = [str(b.number) for b in shown if b.state == state]
            if numbers:
                self._conv.add_notice(f"Cannot apply EDIT {', '.join(numbers)}: {advice}. Nothing was written.",
                                      "error")
                return
        lines = [f"Write {len(review.files)} file(s) with {len(chosen)} block(s):", ""]
        for key in review.files:
            numbers = ", ".join(str(rb.number) for rb in chosen if rb.key == key)
            lines.append(f"  {key}   EDIT {numbers}")
        rejected = [rb.number for rb in review.blocks if not rb.accepted]
        if rejected:
            lines += ["", f"Not written (rejected): EDIT {', '.join(map(str, rejected))}"]
        lines += ["", "The blocks are checked against the files again just before writing."]
        self.app.push_screen(ConfirmScreen("Apply the accepted blocks?", lines, "apply"), self._apply_answered)

    def _apply_answered(self, yes: bool | None) -> None:
        if yes:
            self._conv.show_thinking("applying…")
            self.app.bridge.apply()
        else:
            self._conv.add_notice("Apply cancelled: nothing was written.")

    def confirm_undo(self) -> None:
        """Ask the bridge what undo would restore; the dialog follows."""
        self.app.bridge.preview_undo()

    def undo_previewed(self, message: UndoPreviewed) -> None:
        files = message.files
        if files is None:
            self._conv.add_notice("Nothing to undo: no applied plan is kept in .agent/journal.", "warning")
            return
        lines = ["Restore these files to their bytes before the last apply:", "",
                 *(f"  {f}" for f in files), "", "Refused, with nothing written, if any of them changed since."]
        self.app.push_screen(ConfirmScreen("Undo the last apply?", lines, "undo"), self._undo_answered)

    def _undo_answered(self, yes: bool | None) -> None:
        if yes:
            self.app.bridge.undo()
        else:
            self._conv.add_notice("Undo cancelled: nothing was written.")

    def _export_to(self, path: str | None) -> None:
        if path:
            from pathlib import Path

            self.app.bridge.export(Path(path))

    # --- results ----------------------------------------------------------------

    def review_changed(self, message: ReviewChanged) -> None:
        screen = self.app.main_screen
        screen.diff_pane.show(message.blocks)
        screen.set_class(bool(message.blocks), "-reviewing")
        for note in message.notes:
            self._conv.add_notice(note, "warning")
        if message.blocks is None:
            self.app.bridge.stop_watching()
            return
        if message.origin:
            files = len({b.file for b in message.blocks})
            what = f"{len(message.blocks)} block(s) in {files} file(s)"
            keys = "In the Diff pane (F4): space accepts/rejects, a applies, e exports."
            if message.origin == "planner":
                self._conv.add_notice(f"The plan has {what}. {keys}")
            else:
                self._conv.add_notice(f"Opened {message.origin}: {what}. {keys}")
                screen.action_focus_pane("diff")
            if self.watch:
                self.app.bridge.watch()

    def review_failed(self, message: ReviewFailed) -> None:
        self._conv.add_notice(message.message, "error")

    def apply_progressed(self, message: ApplyProgressed) -> None:
        self._conv.show_thinking(f"applying: {message.line}")

    def apply_finished(self, message: ApplyFinished) -> None:
        self._conv.hide_thinking()
        self._say(apply_lines(message.outcome))

    def undo_finished(self, message: UndoFinished) -> None:
        self._say(undo_lines(message.outcome))

    def plan_exported(self, message: PlanExported) -> None:
        if message.error:
            self._conv.add_notice(f"Export to {message.path} failed: {message.error}", "error")
        else:
            self._conv.add_notice(f"Exported {message.count} accepted block(s) to {message.path}.")


def _set_all(review: Review, accepted: bool) -> list[str]:
    review.set_all(accepted)
    return []
