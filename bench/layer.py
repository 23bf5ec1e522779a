"""What the copy-on-write layer costs, against references measured in the same run.

Three measurements on a scratch git repository:

1. **A command.** The same command (``git status --short`` by default, or
   ``--command``) run as the ``bash`` tool runs it in the layer (the lock,
   bubblewrap, the overlay, the stamps recorded after it) and sandboxed
   directly on the tree (the session's own backend). Prints the medians, their
   ratio (target at most 1.3) and the fixed cost per command in milliseconds.
2. **The first screen of a review.** After a command that touched
   ``--files`` files (deleted a third, modified a third, created a third), the
   time from the turn's end to the review's first picture (the layer's net
   change read, turned into a diff, parsed and its first blocks checked),
   against reading the same change as a ``git diff`` into a review (target: at
   most one second).
3. **Applying it.** Applying the whole net change from the layer (the
   transaction, then the layer rebuilt to nothing) against ``ljtui apply`` of
   the same change as a diff on an identical copy of the repository.

    python bench/layer.py [--runs 30] [--files 1000] [--command 'git status --short']
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ljtui.core.clock import SystemClock
from ljtui.core.confine.session import CommandSandbox
from ljtui.core.edits.service import ApplyOptions, EditService
from ljtui.core.layer.review import ORIGIN, summarize
from ljtui.core.layer.service import Layer
from ljtui.core.ports import ListSink
from ljtui.core.review.requests import ChangeText
from ljtui.core.review.service import ReviewService


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True,
                   env={**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@x", "GIT_COMMITTER_NAME": "b",
                        "GIT_COMMITTER_EMAIL": "b@x"})


def make_repo(root: Path, files: int) -> Path:
    repo = root / "repo"
    (repo / "src").mkdir(parents=True)
    for n in range(files):
        (repo / "src" / f"m{n:05d}.py").write_text("".join(f"line {i} of module {n}\n" for i in range(40)))
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "start")
    return repo


async def run(sandbox: CommandSandbox, repo: Path, command: str, layered: bool) -> None:
    from ljtui.core.agent.shell import run_command
    from ljtui.core.agent.tools.bash import in_layer

    rules = sandbox.rules(repo, layered=layered)
    confinement = sandbox.confinement(rules, layered=layered)
    async with in_layer(sandbox, confinement):
        result = await run_command(command, repo, confinement=confinement, timeout=60, on_output=lambda _t: None,
                                   cancelled=asyncio.Event(), env=sandbox.environment())
    if result.exit_code != 0:
        raise SystemExit(f"the command failed ({'layered' if layered else 'direct'}): {result.output[-300:]}")


def command_cost(repo: Path, layer: Layer, command: str, runs: int) -> tuple[float, float]:
    sandbox = CommandSandbox(repo, layer=layer)
    times: dict[bool, list[float]] = {True: [], False: []}
    try:
        for _ in range(runs):
            for layered in (False, True):
                began = time.perf_counter()
                asyncio.run(run(sandbox, repo, command, layered))
                times[layered].append(time.perf_counter() - began)
    finally:
        sandbox.close()
    return statistics.median(times[False]) * 1000, statistics.median(times[True]) * 1000


def touch_files(repo: Path, layer: Layer, files: int) -> None:
    third = files // 3
    script = (f"cd src && ls | head -n {third} | xargs rm -f && "
              f"for f in $(ls | head -n {third}); do echo changed >> $f; done && "
              f"mkdir -p ../new && for i in $(seq 1 {files - 2 * third}); do echo new $i > ../new/n$i.py; done")
    sandbox = CommandSandbox(repo, layer=layer)
    try:
        asyncio.run(_run_script(sandbox, repo, script))
    finally:
        sandbox.close()


async def _run_script(sandbox: CommandSandbox, repo: Path, script: str) -> None:
    await run(sandbox, repo, script, True)


def first_screen(repo: Path, layer: Layer) -> tuple[float, float, str]:
    sink = ListSink()
    review = ReviewService(repo, sink, _never, SystemClock())
    began = time.perf_counter()
    with layer.holding():
        found = summarize(layer.change())
    opened = review.open_decided(found.text, ORIGIN, lambda _paths: None)
    layered_s = time.perf_counter() - began
    assert opened, [getattr(e, "message", e) for e in sink.events]
    other = ReviewService(repo, ListSink(), _never, SystemClock())
    began = time.perf_counter()
    other.open_text(found.text, "git diff", "diff")
    plain_s = time.perf_counter() - began
    return layered_s, plain_s, found.text


async def _never(_request):  # type: ignore[no-untyped-def]
    raise AssertionError("nothing asks here")


async def _yes(request):  # type: ignore[no-untyped-def]
    from ljtui.core.approval import Decision

    return Decision("yes")


def apply_both(repo: Path, copy: Path, layer: Layer, text: str) -> tuple[float, float]:
    os.sync()  # both start with nothing left to flush (the copy was just written)
    began = time.perf_counter()
    outcome = asyncio.run(EditService(repo, ListSink(), _yes, SystemClock()).apply_change(
        ChangeText(text, ORIGIN), ApplyOptions(checks=False), "diff"))
    with layer.holding():
        layer.settle(set(outcome.result.files))
    layered_s = time.perf_counter() - began
    os.sync()
    began = time.perf_counter()
    plain = asyncio.run(EditService(copy, ListSink(), _yes, SystemClock()).apply_change(
        ChangeText(text, "diff"), ApplyOptions(checks=False), "diff"))
    plain_s = time.perf_counter() - began
    assert sorted(outcome.result.files) == sorted(plain.result.files)
    return layered_s, plain_s


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--command", default="git status --short")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ljtui-bench-layer-") as scratch:
        root = Path(scratch)
        os.environ["XDG_STATE_HOME"] = str(root / "state")
        repo = make_repo(root, args.files)
        layer = Layer(repo)
        if not layer.status.layered:
            sys.exit(f"no layer on this machine: {layer.status.why}")
        direct, layered = command_cost(repo, layer, args.command, args.runs)
        print(f"command {args.command!r}, median of {args.runs}:")
        print(f"  sandboxed directly  {direct:8.1f} ms")
        print(f"  in the layer        {layered:8.1f} ms   ratio {layered / direct:.2f} (target <= 1.3), "
              f"fixed cost {layered - direct:+.1f} ms per command")
        with layer.holding():
            layer.drop()
        copy = root / "copy"
        shutil.copytree(repo, copy, symlinks=True)
        touch_files(repo, layer, args.files)
        shown, plain, text = first_screen(repo, layer)
        print(f"review after a command that touched {args.files} files:")
        print(f"  first screen from the layer  {shown * 1000:8.1f} ms (target <= 1000 ms)")
        print(f"  the same diff read as text   {plain * 1000:8.1f} ms   ratio {shown / plain:.2f}")
        from_layer, as_diff = apply_both(repo, copy, layer, text)
        print(f"applying the {args.files}-file change:")
        print(f"  from the layer (and settling it)  {from_layer * 1000:8.1f} ms")
        print(f"  ljtui apply of the same diff      {as_diff * 1000:8.1f} ms   ratio {from_layer / as_diff:.2f}")


if __name__ == "__main__":
    main()
