"""The README's images, made from the app's snapshot tests.

    python docs/images.py           # redraw the snapshots below, then copy them
    python docs/images.py --copy    # copy the snapshots as they are

Each image in ``docs/images/`` is a copy of one snapshot test's SVG, so an
image shows the app as the tests see it today. ``tests/docs/test_readme_images.py``
fails when an image differs from its snapshot or the README shows any other
picture.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
IMAGES = ROOT / "docs" / "images"
SNAPSHOTS = ROOT / "tests" / "tui" / "__snapshots__"

# image name -> (test module under tests/tui, test id)
SOURCES: dict[str, tuple[str, str]] = {
    "review.svg": ("test_snapshots", "test_diff_pane_accepted_rejected_stale[120x40]"),
    "demo.svg": ("test_demo", "test_first_screen_with_the_plan_under_review[120x40]"),
    "permission.svg": ("test_agent_in_app", "test_permission_dialog_with_a_diff[120x40]"),
    "layer.svg": ("test_layer_review", "test_snapshot_of_a_commands_deletions_and_the_ignored_build_output"),
    "task-plan.svg": ("test_plan_pane_snapshots", "test_a_plan_awaiting_approval[120x40]"),
    "gate-check.svg": ("test_gates_pane_snapshots", "test_a_failed_check_s_command_and_output_expanded[120x40]"),
}


def snapshot(name: str) -> Path:
    """The snapshot file an image is copied from."""
    module, test_id = SOURCES[name]
    return SNAPSHOTS / module / f"{test_id}.svg"


def node_ids() -> list[str]:
    """The pytest node ids of the snapshot tests behind the images."""
    return [f"tests/tui/{module}.py::{test_id}" for module, test_id in SOURCES.values()]


def copy() -> None:
    IMAGES.mkdir(exist_ok=True)
    for name in SOURCES:
        shutil.copyfile(snapshot(name), IMAGES / name)
    for stale in IMAGES.glob("*.svg"):
        if stale.name not in SOURCES:
            stale.unlink()


def main(argv: list[str]) -> int:
    if "--copy" not in argv:
        redraw = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--snapshot-update", *node_ids()]
        if subprocess.run(redraw, cwd=ROOT).returncode != 0:
            print("The snapshot tests failed; the images were not copied.", file=sys.stderr)
            return 1
    copy()
    print(f"{len(SOURCES)} images in {IMAGES.relative_to(ROOT)}/")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
