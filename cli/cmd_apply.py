"""``ljtui apply PLAN.md``: apply an EDIT plan atomically (SPEC EDIT-13)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ljtui.core.edits.apply import DEFAULT_CHUNK_SIZE, Preview, commit_plan, dry_run_result, preview_plan
from ljtui.core.edits.diffs import render_diffs
from ljtui.core.edits.errors import StalePlan
from ljtui.core.edits.paths import find_repo_root
from ljtui.core.edits.plan_format import EditPlan, PlanParseError, parse_plan
from ljtui.core.edits.repair import format_failures_for_repair
from ljtui.core.edits.result import ERROR, ApplyResult, FailedEntry, emit

YES_ANSWERS = ("y", "yes")


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``apply`` command."""
    parser = subparsers.add_parser("apply", help="apply an EDIT plan atomically",
                                   description="Apply an EDIT plan: all or nothing, journaled, crash-safe.")
    parser.add_argument("plan", type=Path, help="the plan (Markdown with ### EDIT blocks)")
    parser.add_argument("--dry-run", action="store_true", help="print unified diffs and change nothing")
    parser.add_argument("--json", action="store_true", help="print the result contract as JSON on stdout")
    parser.add_argument("--partial", action="store_true", help="apply each entry on its own; failed entries are skipped")
    parser.add_argument("--yes", action="store_true", help="apply without asking, even on a terminal")
    parser.add_argument("--chunk-size", type=int, default=DEFAULT_CHUNK_SIZE, metavar="N",
                        help=f"entries per chunk, 1-20 (default {DEFAULT_CHUNK_SIZE})")
    parser.add_argument("--no-checks", dest="checks", action="store_false", help="skip post-apply syntax checks")
    parser.add_argument("--repo", type=Path, default=argparse.SUPPRESS, help="repository root (default: from cwd)")
    parser.set_defaults(func=run)


def _say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _finish(result: ApplyResult, plan: EditPlan | None, as_json: bool) -> int:
    data = emit(result, plan.entry_ids if plan else ())
    if as_json:
        print(json.dumps(data, indent=2, ensure_ascii=False))
    else:
        for path in result.files:
            print(f"wrote {path}")
        for check in result.checks:
            mark = "ok" if check["ok"] else f"FAILED: {check['message']}"
            print(f"check {check['checker']} {check['file']}: {mark}")
        for failed in result.failed:
            print(f"failed entry {failed.entry_id}: {failed.reason}", file=sys.stderr)
        for note in result.notes:
            print(f"note: {note}", file=sys.stderr)
        print(f"{result.status}" + (f": {result.message}" if result.message else ""), file=sys.stderr)
    return result.exit_code


def _confirm(preview: Preview) -> bool:
    colour = sys.stdout.isatty()
    sys.stdout.write(render_diffs(preview.changes, colour=colour))
    sys.stdout.write(f"Apply changes to {len(preview.changes)} file(s)? [y/N] ")
    sys.stdout.flush()
    answer = sys.stdin.readline()
    return answer.strip().lower() in YES_ANSWERS


def run(args: argparse.Namespace) -> int:
    """Apply (or preview) the plan; exit 0 done, 1 partial, 2 error."""
    start = getattr(args, "repo", None) or Path.cwd()
    if not start.is_dir():
        return _finish(ApplyResult(ERROR, message=f"--repo {start}: not a directory; nothing was written"),
                       None, args.json)
    root = find_repo_root(start)
    try:
        text = args.plan.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return _finish(ApplyResult(ERROR, message=f"cannot read plan {args.plan}: {exc}"), None, args.json)
    try:
        plan = parse_plan(text)
    except PlanParseError as exc:
        for err in exc.errors:
            _say(str(err))
        return _finish(ApplyResult(ERROR, message=f"the plan is malformed: {exc}"), None, args.json)
    preview = preview_plan(plan, root, partial=args.partial, chunk_size=args.chunk_size, say=_say)
    if preview.errors:
        _say(format_failures_for_repair(preview.errors, root))
    if args.dry_run:
        diff = render_diffs(preview.changes, colour=sys.stdout.isatty() and not args.json)
        (sys.stderr if args.json else sys.stdout).write(diff)
        return _finish(dry_run_result(preview), plan, args.json)
    interactive = sys.stdin.isatty() and sys.stdout.isatty()
    if preview.changes and interactive and not args.yes and not _confirm(preview):
        declined = [FailedEntry(i, "declined: the user did not confirm the apply") for i in plan.entry_ids]
        return _finish(ApplyResult(ERROR, failed=declined, message="declined; nothing was written"), plan, args.json)
    report = commit_plan(preview, root, run_checks=args.checks, say=_say)
    if any(isinstance(err, StalePlan) for err in report.errors):
        _revalidate(plan, root, args)
    return _finish(report.result, plan, args.json)


def _revalidate(plan: EditPlan, root: Path, args: argparse.Namespace) -> None:
    """After a stale refusal, validate again against the files as they are now."""
    fresh = preview_plan(plan, root, partial=args.partial, chunk_size=args.chunk_size)
    if fresh.errors:
        _say("re-validated against the current files: the plan no longer applies:")
        _say(format_failures_for_repair(fresh.errors, root))
    else:
        _say(f"re-validated against the current files: the plan still applies to {len(fresh.changes)} file(s); "
             "run the command again to review and apply it")
