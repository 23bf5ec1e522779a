"""The launcher holds every process a command starts: a double-forking ``setsid`` daemon ends with the command, with
its stop, with the launcher and with ljtui, in a pid namespace, as a subreaper (forced) and under bubblewrap's own
init; the command's exit status, signals and view of the processes stay right."""

from __future__ import annotations

import dataclasses
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from ljtui.core.confine import landlock
from ljtui.core.confine.launch import PREFIX, REFUSED_EXIT
from ljtui.core.confine.rules import Place, Rules
from ljtui.core.confine.spawn import LAUNCHER, Confinement
from ljtui.core.confine.status import BUBBLEWRAP, LANDLOCK, NONE
from tests.core.confine.helpers import sandbox_for
from tests.core.confine.leftovers import DAEMON, assert_gone, daemon_command, holders, marker, wait_gone

__all__ = ["marker"]

ENV = {"PATH": "/usr/bin:/bin"}
HOLDS = {"landlock-namespace": (LANDLOCK, True), "landlock-subreaper": (LANDLOCK, False), "none": (NONE, False),
         "bubblewrap": (BUBBLEWRAP, True)}
"""Each way a command's processes are held: a backend, and whether a pid namespace is tried."""
OWNER = str(Path(__file__).with_name("owner.py"))
BWRAP_SECONDS = 2.0
"""Longest a bubblewrap namespace may take to vanish after bwrap exits."""


def held(name: str, root: Path) -> Confinement:
    """A confinement of ``root`` held the way ``name`` says (the test is skipped where this machine cannot)."""
    backend, namespace = HOLDS[name]
    box = sandbox_for(backend, root, temp_parent=root.parent)
    return dataclasses.replace(box.confinement(box.rules(root)), pid_namespace=namespace)


def start(confinement: Confinement, command: str, root: Path, **kwargs: object) -> subprocess.Popen[bytes]:
    return confinement.popen(["/bin/bash", "-c", command], cwd=root, env=ENV, stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True,
                             **kwargs)  # type: ignore[arg-type]


def gone_with_its_owner(hold: str, marker: Path) -> None:
    """The daemon is gone once its owner has exited; under bubblewrap, a moment after: bwrap returns as soon as the
    command exits, and its namespace's init, whose parent bwrap was, dies of ``--die-with-parent`` then (bwrap's
    init alone would wait for every process in it to end)."""
    if hold == "bubblewrap":
        wait_gone(marker, BWRAP_SECONDS)
    else:
        assert_gone(marker)


def first_line(proc: subprocess.Popen[bytes]) -> str:
    assert proc.stdout is not None
    return proc.stdout.readline().decode().strip()


@pytest.fixture(params=list(HOLDS))
def hold(request: pytest.FixtureRequest) -> str:
    return request.param


def test_a_daemon_a_command_leaves_ends_with_the_command(hold: str, tmp_path: Path, marker: Path) -> None:
    proc = start(held(hold, tmp_path), f"{daemon_command(marker)} && echo started; exit 3", tmp_path)
    output, _ = proc.communicate(timeout=60)
    assert proc.returncode == 3 and output == b"started\n"
    gone_with_its_owner(hold, marker)


def test_a_stop_gives_the_grace_then_kills_what_ignores_sigterm(hold: str, tmp_path: Path, marker: Path) -> None:
    proc = start(held(hold, tmp_path), f"{daemon_command(marker, ignore_term=True)} && echo started; sleep 300",
                 tmp_path, grace=1.0)
    assert first_line(proc) == "started"
    stopped = time.monotonic()
    os.killpg(proc.pid, signal.SIGTERM)
    proc.wait(timeout=60)
    took = time.monotonic() - stopped
    assert proc.returncode == -signal.SIGTERM
    if hold != "bubblewrap":  # bubblewrap kills its namespace at once when bwrap gets SIGTERM
        assert 0.8 <= took < 5, took
    gone_with_its_owner(hold, marker)


@pytest.mark.parametrize("hold_name", ["landlock-namespace", "bubblewrap"])
def test_killing_the_launcher_ends_its_namespace(hold_name: str, tmp_path: Path, marker: Path) -> None:
    proc = start(held(hold_name, tmp_path), f"{daemon_command(marker, ignore_term=True)} && echo started; sleep 300",
                 tmp_path)
    assert first_line(proc) == "started"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=60)
    wait_gone(marker)


def test_ljtui_killed_takes_every_command_with_it(hold: str, tmp_path: Path, marker: Path) -> None:
    """The lifeline: the owner is SIGKILLed, so nothing of it runs to stop its command."""
    confinement = held(hold, tmp_path)  # skips where this machine cannot hold a command this way
    backend, namespace = HOLDS[hold]
    command = f"{daemon_command(marker)} && echo started; sleep 300"
    owner = subprocess.Popen([sys.executable, OWNER, backend, "1" if namespace else "0", str(tmp_path), command,
                              *([confinement.status.bwrap] if confinement.status.bwrap else [])],
                             stdout=subprocess.PIPE)
    try:
        assert owner.stdout is not None and owner.stdout.readline() == b"started\n"
        assert holders(marker)
    finally:
        owner.kill()
        owner.wait()
    wait_gone(marker)


@pytest.mark.parametrize("hold_name", ["landlock-namespace", "landlock-subreaper"])
def test_the_program_gets_default_signal_handling_and_dies_of_its_signal(hold_name: str, tmp_path: Path) -> None:
    """SIGPIPE at its default (Python, which the launcher runs on, ignores it), so a writer into a closed pipe ends
    quietly: the program ignores exactly what a program :class:`subprocess.Popen` starts ignores (what the test
    runner was started ignoring, such as SIGQUIT for a background job); a death by a signal is the launcher's too."""
    plain = subprocess.run(["/bin/sh", "-c", "grep SigIgn /proc/self/status"], capture_output=True, check=True)
    proc = start(held(hold_name, tmp_path), "yes | head -n 1; grep SigIgn /proc/self/status; kill -USR1 $$", tmp_path)
    output, _ = proc.communicate(timeout=60)
    assert output.decode() == "y\n" + plain.stdout.decode()
    assert proc.returncode == -signal.SIGUSR1


def test_in_a_pid_namespace_a_command_sees_only_its_own_processes(tmp_path: Path) -> None:
    confinement = held("landlock-namespace", tmp_path)
    command = f"echo $$; tr '\\0' ' ' < /proc/1/cmdline; echo; test -e /proc/{os.getpid()} || echo ljtui-hidden"
    output, _ = start(confinement, command, tmp_path).communicate(timeout=60)
    pid, init, hidden = output.decode().splitlines()
    assert pid == "2" and "import launch" in init and hidden == "ljtui-hidden"


def test_as_a_subreaper_the_launcher_stays_outside_the_commands_domain(tmp_path: Path) -> None:
    confinement = held("landlock-subreaper", tmp_path)
    if confinement.status.abi < 6:
        pytest.skip(f"Landlock ABI {confinement.status.abi} has no signal scoping")
    proc = start(confinement, "tr '\\0' ' ' < /proc/$PPID/cmdline; echo; kill -KILL $PPID 2>&1; echo survived",
                 tmp_path)
    output, _ = proc.communicate(timeout=60)
    parent, *rest = output.decode().splitlines()
    assert "import launch" in parent and "--no-pid-namespace" in parent
    assert proc.returncode == 0 and rest[-1] == "survived" and "Operation not permitted" in rest[0]


@pytest.mark.parametrize("hold_name", ["landlock-namespace", "none"])
def test_the_launcher_takes_none_of_its_modules_from_the_commands_folder(hold_name: str, tmp_path: Path) -> None:
    """The launcher imports its own modules by name: a command's folder (the repository) holding files of those
    names runs none of them."""
    planted = tmp_path / "planted"
    for name in ("launch", "reaper", "select", "resource"):
        (tmp_path / f"{name}.py").write_text(f"open({str(planted)!r}, 'a').write({name!r})\n")
    proc = start(held(hold_name, tmp_path), "kill -USR1 $$", tmp_path)
    assert proc.wait(timeout=60) == -signal.SIGUSR1
    assert not planted.exists()


def test_the_subreaper_runs_nothing_outside_the_domain(tmp_path: Path) -> None:
    landlock_abi()
    ran = tmp_path / "ran"
    argv = [sys.executable, "-I", "-S", str(LAUNCHER), "--landlock", "999", "--no-pid-namespace", "--",
            "/bin/sh", "-c", f"echo > {ran}"]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert done.returncode == REFUSED_EXIT and not ran.exists()
    assert done.stderr.strip() == (f"{PREFIX} cannot enter the Landlock domain (the command did not run): "
                                   "Bad file descriptor")


def test_a_missing_program_is_a_clear_refusal_as_a_subreaper(tmp_path: Path) -> None:
    proc = held("none", tmp_path).popen(["/no/such/program"], cwd=tmp_path, env=ENV, stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT)
    output, _ = proc.communicate(timeout=60)
    assert proc.returncode == REFUSED_EXIT and b"cannot start /no/such/program" in output


def test_a_lifeline_that_is_not_open_is_refused(tmp_path: Path) -> None:
    ran = tmp_path / "ran"
    argv = [sys.executable, "-I", "-S", str(LAUNCHER), "--lifeline", "999", "--", "/bin/sh", "-c", f"echo > {ran}"]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert done.returncode == REFUSED_EXIT and not ran.exists()
    assert done.stderr.startswith(f"{PREFIX} the lifeline descriptor 999 is not open")


@pytest.mark.parametrize("argv", [["--grace", "soon", "--", "true"], ["--landlock", "--", "true"], ["--", ],
                                  ["--bogus", "--", "true"]])
def test_the_launcher_reads_its_options_and_refuses_a_command_line_it_cannot_read(argv: list[str]) -> None:
    launcher = [sys.executable, "-I", "-S", str(LAUNCHER)]
    fine = subprocess.run([*launcher, "--grace", "0.5", "--no-pid-namespace", "--", "/bin/sh", "-c", "exit 4"],
                          capture_output=True, text=True, timeout=60)
    assert fine.returncode == 4 and fine.stderr == ""
    done = subprocess.run([*launcher, *argv], capture_output=True, text=True, timeout=60)
    assert done.returncode == REFUSED_EXIT and "usage: launch.py" in done.stderr


UNPRIVILEGED = 1001
"""The user the probe becomes (an id with no files of its own on a test machine)."""
SYSTEM_PYTHON = "/usr/bin/python3"
"""An interpreter an unprivileged user can run (the launcher needs the standard library only)."""


def test_an_unprivileged_user_gets_the_namespace_and_the_sandbox(tmp_path: Path) -> None:
    """As uid 1001 (when these tests run as root): its own uid inside, pid 2, and the daemon gone with it."""
    landlock_abi()
    if os.geteuid() != 0 or shutil.which("setpriv") is None or not os.path.exists(SYSTEM_PYTHON):
        pytest.skip("needs root, setpriv and /usr/bin/python3 to run as an unprivileged user")
    base = Path(tempfile.mkdtemp(prefix="ljtui-reaper-"))
    folder, outside = base / "inside", base / "outside"
    try:
        for path in (base, folder, outside):
            path.mkdir(exist_ok=True)
            os.chown(path, UNPRIVILEGED, UNPRIVILEGED)
        marker_path = folder / "marker"
        programs = base / "programs"  # copies the user can read wherever the test's own files are
        programs.mkdir()
        for source in (LAUNCHER, LAUNCHER.with_name("reaper.py"), Path(DAEMON)):
            shutil.copy(source, programs / source.name)
        os.chmod(programs, 0o755)
        launcher, daemon = programs / LAUNCHER.name, programs / Path(DAEMON).name
        fd = landlock.ruleset_fd(Rules((Place(folder, "here"),)))
        command = (f"id -u; echo $$; {SYSTEM_PYTHON} {daemon} {marker_path} ignore-term && echo started; "
                   f"echo x > {outside}/file 2>/dev/null || echo refused")
        try:
            done = subprocess.run(["setpriv", f"--reuid={UNPRIVILEGED}", f"--regid={UNPRIVILEGED}", "--clear-groups",
                                   SYSTEM_PYTHON, "-I", "-S", "-B", str(launcher), "--landlock", str(fd),
                                   "--grace", "0.2", "--", "/bin/bash", "-c", command],
                                  cwd=folder, env=ENV, capture_output=True, text=True, timeout=60, pass_fds=(fd,))
        finally:
            os.close(fd)
        assert done.stdout.splitlines() == [str(UNPRIVILEGED), "2", "started", "refused"], done.stderr
        assert done.returncode == 0 and list(outside.iterdir()) == []
        assert_gone(marker_path)
    finally:
        for pid in holders(folder / "marker"):
            os.kill(pid, signal.SIGKILL)
        shutil.rmtree(base, ignore_errors=True)


def landlock_abi() -> int:
    try:
        return landlock.abi_version()
    except landlock.LandlockUnavailable as exc:
        pytest.skip(str(exc))

