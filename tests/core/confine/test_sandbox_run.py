"""Commands in the real sandboxes: writes outside the repository leave nothing, the network needs a grant,
git works, a staging tree keeps checks off the user's tree, and the runner still stops what it starts."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ljtui.core.agent.shell import run_command
from ljtui.core.confine.refusal import refusal_note
from ljtui.core.confine.session import STAGING_LABEL, CommandSandbox
from tests.core.confine.helpers import BACKENDS, Listener, sandbox_for

GIT_ID = "-c user.email=t@example.com -c user.name=t"


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
def places(tmp_path: Path) -> tuple[Path, Path, Path]:
    """``(repo, outside, home)``: the repository, a folder beside it, and a home folder outside it."""
    repo, outside, home = tmp_path / "repo", tmp_path / "outside", tmp_path / "home"
    for folder in (repo, outside, home):
        folder.mkdir()
    (repo / "src.txt").write_text("source\n")
    (outside / "existing.txt").write_text("keep me\n")
    return repo, outside, home


def outside_commands(outside: Path) -> list[str]:
    """Commands that try to write to ``outside`` (a harmless temp folder) by many routes."""
    up = "/dev/fd/../../.." + str(outside)
    return [
        'echo x > "$HOME/stolen"',
        f"echo x > {up}/via-dev-fd",
        f"echo x | tee {outside}/tee.txt",
        f"curl -s -o {outside}/curl.txt file://$PWD/src.txt",
        f"tar -cf a.tar src.txt && tar -C {outside} -xf a.tar",
        f"git init -q . && git add src.txt && git {GIT_ID} commit -qm x && git --work-tree={outside} checkout HEAD -- .",
        f"ln -s {outside} link && echo x > link/via-link.txt",
        f"cp src.txt {outside}/cp.txt",
        f"mkdir {outside}/made",
        f"{sys.executable} -c \"open('{outside}/py.txt', 'w').write('x')\"",
        f"rm {outside}/existing.txt",
        f"mv {outside}/existing.txt moved.txt",
        f"echo x >> {outside}/existing.txt",
        f"ln {outside}/existing.txt hard-link && echo x >> hard-link",
    ]


@pytest.mark.parametrize("index", range(14))
async def test_a_write_outside_the_repository_leaves_nothing(backend: str, places: tuple[Path, Path, Path],
                                                             index: int) -> None:
    repo, outside, home = places
    box = sandbox_for(backend, repo)
    command = outside_commands(outside)[index]
    env = {**box.environment(), "HOME": str(home)}
    result = await run_command(command, repo, confinement=box.confinement(box.rules(repo)), timeout=60, env=env)
    box.close()
    assert sorted(p.name for p in outside.iterdir()) == ["existing.txt"], (command, result.output)
    assert (outside / "existing.txt").read_text() == "keep me\n"
    assert list(home.iterdir()) == [], (command, result.output)
    assert result.exit_code != 0, (command, result.output)


async def test_writes_inside_the_repository_and_the_temp_dir_work(backend: str,
                                                                   places: tuple[Path, Path, Path]) -> None:
    repo, _, _ = places
    box = sandbox_for(backend, repo)
    command = ("echo a > inside.txt && mkdir -p sub/deep && echo b > sub/deep/f && echo c > \"$TMPDIR/t\" "
               "&& cat \"$TMPDIR/t\" && echo d > /dev/null && echo e >&2 && echo done")
    result = await run_command(command, repo, confinement=box.confinement(box.rules(repo)), timeout=60,
                               env=box.environment())
    tmp = box.tmp_dir
    assert result.exit_code == 0, result.output
    assert result.output.splitlines() == ["c", "e", "done"]
    assert (repo / "inside.txt").read_text() == "a\n" and (repo / "sub/deep/f").read_text() == "b\n"
    assert (tmp / "t").read_text() == "c\n" and oct(tmp.stat().st_mode & 0o777) == "0o700"
    box.close()
    assert not tmp.exists()


async def test_git_works_inside_the_sandbox(backend: str, places: tuple[Path, Path, Path]) -> None:
    repo, _, home = places
    box = sandbox_for(backend, repo)
    command = (f"git init -q . && git add src.txt && git {GIT_ID} commit -qm first && git status --short "
               f"&& echo more >> src.txt && git stash -q && git stash list && git stash pop -q "
               f"&& git {GIT_ID} commit -qam second && git log --format=%s")
    env = {**box.environment(), "HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1"}
    result = await run_command(command, repo, confinement=box.confinement(box.rules(repo)), timeout=60, env=env)
    box.close()
    assert result.exit_code == 0, result.output
    assert "stash@{0}" in result.output and result.output.rstrip().endswith("second\nfirst")


async def test_the_network_is_off_until_the_user_grants_it(backend: str, places: tuple[Path, Path, Path]) -> None:
    repo, _, _ = places
    box = sandbox_for(backend, repo)
    listener = Listener()
    command = f"exec 3<>/dev/tcp/127.0.0.1/{listener.port} && head -n 1 <&3"
    try:
        refused = await run_command(command, repo, confinement=box.confinement(box.rules(repo)), timeout=60,
                                    env=box.environment())
        assert refused.exit_code != 0 and listener.connections == 0, refused.output
        granted = box.confinement(box.rules(repo).with_network(True))
        allowed = await run_command(command, repo, confinement=granted, timeout=60, env=box.environment())
        assert allowed.exit_code == 0 and allowed.output == "ok\n", allowed.output
        assert listener.connections == 1
    finally:
        listener.close()
        box.close()


async def test_listening_on_a_port_needs_the_network_too(places: tuple[Path, Path, Path]) -> None:
    repo, _, _ = places
    box = sandbox_for("landlock", repo)
    command = f"{sys.executable} -c \"import socket; socket.create_server(('127.0.0.1', 0)); print('bound')\""
    refused = await run_command(command, repo, confinement=box.confinement(box.rules(repo)), timeout=60,
                                env=box.environment())
    allowed = await run_command(command, repo, confinement=box.confinement(box.rules(repo).with_network(True)),
                                timeout=60, env=box.environment())
    box.close()
    assert refused.exit_code != 0 and "PermissionError" in refused.output
    assert allowed.output == "bound\n"


async def test_a_check_in_the_staging_tree_cannot_write_the_users_tree(backend: str,
                                                                       places: tuple[Path, Path, Path]) -> None:
    repo, _, _ = places
    tree = repo / ".agent" / "workspace" / "run-1" / "tree"
    tree.mkdir(parents=True)
    (tree / "src.txt").write_text("staged\n")
    box = sandbox_for(backend, repo)
    rules = box.rules(tree)
    command = f"echo staged-change >> src.txt; echo x > {repo}/src.txt; echo y > ../../../../src.txt; echo z > {repo}/new"
    result = await run_command(command, tree, confinement=box.confinement(rules), timeout=60, env=box.environment())
    box.close()
    assert rules.places[0].label == STAGING_LABEL
    assert (repo / "src.txt").read_text() == "source\n" and not (repo / "new").exists()
    assert (tree / "src.txt").read_text() == "staged\nstaged-change\n", result.output


async def test_a_refused_write_is_named_with_how_to_grant_it(places: tuple[Path, Path, Path]) -> None:
    repo, outside, _ = places
    box = sandbox_for("landlock", repo)
    confinement = box.confinement(box.rules(repo))
    result = await run_command(f"echo x > {outside}/f.txt", repo, confinement=confinement, timeout=60,
                               env=box.environment())
    note = refusal_note(result.output, result.exit_code, confinement)
    box.close()
    assert note is not None and f"the write to {outside}/f.txt was refused" in note
    assert "agent.sandbox.write_paths" in note and "this repository, a private temp dir" in note


async def test_a_timed_out_command_is_stopped_with_everything_it_started(backend: str,
                                                                         places: tuple[Path, Path, Path]) -> None:
    repo, _, _ = places
    box = sandbox_for(backend, repo)
    seconds = f"300.{os.getpid()}{len(backend)}"
    command = f"(sleep {seconds} & wait) & sleep {seconds}"
    result = await run_command(command, repo, confinement=box.confinement(box.rules(repo)), timeout=1.0,
                               env=box.environment())
    box.close()
    assert result.timed_out and result.left_running == 0
    assert _running(["sleep", seconds]) == []


def _running(argv: list[str]) -> list[int]:
    """Live processes whose command line is ``argv``."""
    wanted = "\0".join(argv).encode() + b"\0"
    found = []
    for name in os.listdir("/proc"):
        try:
            if name.isdigit() and Path(f"/proc/{name}/cmdline").read_bytes() == wanted:
                state = Path(f"/proc/{name}/stat").read_bytes().rsplit(b")", 1)[1].split()[0]
                if state not in (b"Z", b"X"):
                    found.append(int(name))
        except OSError:
            continue
    return found


async def test_a_command_cannot_signal_a_process_outside_its_sandbox(backend: str,
                                                                     places: tuple[Path, Path, Path]) -> None:
    repo, _, _ = places
    box = sandbox_for(backend, repo)
    if backend == "landlock" and box.status.abi < 6:
        pytest.skip(f"Landlock ABI {box.status.abi} has no signal scoping")
    bystander = subprocess.Popen(["sleep", "60"])
    try:
        result = await run_command(f"kill -TERM {bystander.pid}; echo after", repo,
                                   confinement=box.confinement(box.rules(repo)), timeout=60, env=box.environment())
        assert bystander.poll() is None, result.output
        assert result.output.endswith("after\n")
    finally:
        bystander.kill()
        bystander.wait()
        box.close()


def test_a_sandbox_never_closed_still_removes_its_temp_dir_once_it_is_gone(tmp_path: Path) -> None:
    import gc

    box = CommandSandbox(tmp_path)
    tmp = box.tmp_dir
    (tmp / "left.txt").write_text("by a command\n", encoding="utf-8")
    kept = CommandSandbox(tmp_path)
    kept_tmp = kept.tmp_dir
    del box
    gc.collect()
    assert not tmp.exists()
    assert kept_tmp.is_dir(), "a sandbox in use keeps its own"
    kept.close()
