"""The README's layer example, run exactly as written: a command's deletion and planted hook never reach the
repository, `ljtui layer diff` shows the deletion, `ljtui layer apply` takes it and `ljtui undo` reverts it."""

from __future__ import annotations

from pathlib import Path

import pytest

from ljtui.core.layer import overlay
from tests.cli.test_readme_example import readme_block, run_block

MARKER = "<!-- layer-example -->"


def test_the_layer_example_keeps_the_tree_until_the_change_is_applied_and_undone(tmp_path: Path) -> None:
    refused = overlay.probe(overlay.find_bwrap(), tmp_path, tmp_path / "probes")
    if refused is not None:
        pytest.skip(f"no overlay can be mounted on this machine: {refused}")
    proc = run_block(readme_block(MARKER), tmp_path)
    assert proc.returncode == 0, proc.stderr
    kept, _, rest = proc.stdout.partition("no hook\n")
    assert kept.endswith("Done: src/ is removed in the layer.\na.py\n"), proc.stdout  # the tree kept src/a.py
    assert rest.startswith("diff --git a/src/a.py b/src/a.py\ndeleted file mode 100644\n"), rest
    assert rest.endswith("wrote src/a.py\nsrc/ is empty\nreverted src/a.py\na.py\n"), rest
    for line in ("[bash: allow (layer)]", ".git/hooks/pre-commit: Read-only file system",
                 "ljtui run: the change stays in the layer: `ljtui layer diff` shows it"):
        assert line in proc.stderr, proc.stderr
