"""Finding the sandbox: the order of backends, the self-test, the user's choice, and the launcher's refusals."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ljtui.core.confine import landlock
from ljtui.core.confine.launch import PREFIX, REFUSED_EXIT
from ljtui.core.confine.rules import Place, Rules
from ljtui.core.confine.spawn import LAUNCHER, Confinement
from ljtui.core.confine.status import BUBBLEWRAP, LANDLOCK, NONE, SandboxStatus, detect, selftest
from tests.core.confine.helpers import bundled_bwrap


def no_landlock() -> int:
    raise landlock.LandlockUnavailable("the kernel has no Landlock (test)")


def no_bwrap(_name: str) -> None:
    return None


def real_abi() -> int:
    try:
        return landlock.abi_version()
    except landlock.LandlockUnavailable as exc:
        pytest.skip(str(exc))


def test_landlock_with_network_rules_comes_first() -> None:
    abi = real_abi()
    if abi < landlock.MIN_NETWORK_ABI:
        pytest.skip(f"Landlock ABI {abi} has no network rules")
    status = detect("auto", which=no_bwrap)
    assert status.backend == LANDLOCK and status.confined and status.network_enforced
    assert status.abi == abi and f"Landlock ABI {abi}" in status.why


def test_without_landlock_bubblewrap_is_used_when_it_works() -> None:
    program = bundled_bwrap()
    if program is None:
        pytest.skip("no bwrap here")
    status = detect("auto", abi_probe=no_landlock, which=lambda _name: program)
    if status.backend != BUBBLEWRAP:
        pytest.skip(f"bubblewrap cannot make a sandbox here: {status.why}")
    assert status.bwrap == program and "no Landlock" in status.why


def test_landlock_too_old_for_the_network_prefers_bubblewrap_then_falls_back_to_writes_only() -> None:
    real_abi()
    program = bundled_bwrap()
    with_bwrap = detect("auto", abi_probe=lambda: 3, which=lambda _name: program)
    if program is not None and with_bwrap.backend == BUBBLEWRAP:
        assert "Landlock ABI 3 cannot forbid the network" in with_bwrap.why
    alone = detect("auto", abi_probe=lambda: 3, which=no_bwrap)
    assert alone.backend == LANDLOCK and not alone.network_enforced
    assert "writes are confined, the network is not" in alone.why


def test_with_no_sandbox_at_all_commands_are_unsandboxed_and_it_says_why() -> None:
    status = detect("auto", abi_probe=no_landlock, which=no_bwrap)
    assert status.backend == NONE and not status.confined and status.label == "unsandboxed"
    assert "no Landlock" in status.why and "not on PATH" in status.why and "full rights" in status.why


def test_a_bwrap_that_cannot_make_a_sandbox_is_not_used(tmp_path: Path) -> None:
    fake = tmp_path / "bwrap"
    fake.write_text("#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n")
    fake.chmod(0o755)
    status = detect("auto", abi_probe=no_landlock, which=lambda _name: str(fake))
    assert status.backend == NONE and "No permissions to create new namespace" in status.why


def test_the_users_choice_of_none_or_an_unavailable_backend_is_unsandboxed_never_a_silent_fallback() -> None:
    assert detect("none").backend == NONE
    forced = detect("landlock", abi_probe=no_landlock, which=no_bwrap)
    assert forced.backend == NONE and "agent.sandbox.backend is 'landlock'" in forced.why
    forced = detect("bubblewrap", which=no_bwrap)
    assert forced.backend == NONE and "agent.sandbox.backend is 'bubblewrap'" in forced.why


def test_the_self_test_catches_a_sandbox_that_does_not_confine() -> None:
    pretend = SandboxStatus(NONE, "pretend", 0)
    assert selftest(SandboxStatus(LANDLOCK, "x", real_abi())) is None
    assert selftest(pretend) == "the self-test wrote outside its place"


def test_the_launcher_refuses_to_run_anything_without_its_domain(tmp_path: Path) -> None:
    real_abi()
    marker = tmp_path / "ran"
    argv = [sys.executable, "-I", "-S", str(LAUNCHER), "--landlock", "999", "--", "/bin/sh", "-c", f"echo > {marker}"]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert done.returncode == REFUSED_EXIT and not marker.exists()
    assert done.stderr.startswith(PREFIX) and "the command did not run" in done.stderr
    bad = subprocess.run([sys.executable, "-I", "-S", str(LAUNCHER), "x"], capture_output=True, text=True)
    assert bad.returncode == REFUSED_EXIT and "usage" in bad.stderr


def test_a_missing_program_under_landlock_is_a_clear_refusal(tmp_path: Path) -> None:
    real_abi()
    status = SandboxStatus(LANDLOCK, "x", real_abi())
    confinement = Confinement(status, Rules((Place(tmp_path, "here"),)), tmp_path)
    proc = confinement.popen(["/no/such/program"], cwd=tmp_path, env={}, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT)
    output, _ = proc.communicate(timeout=60)
    assert proc.returncode == REFUSED_EXIT and b"cannot start /no/such/program" in output


def test_writable_places_that_do_not_exist_are_left_out(tmp_path: Path) -> None:
    real_abi()
    fd = landlock.ruleset_fd(Rules((Place(tmp_path / "gone", "gone"), Place(tmp_path, "here"))))
    try:
        assert not os.get_inheritable(fd)
    finally:
        os.close(fd)


@pytest.mark.parametrize("direct", [True, False], ids=["_ctypes", "ctypes"])
def test_the_launcher_reports_the_kernels_refusal_in_its_words(tmp_path: Path, direct: bool) -> None:
    """Both ways the launcher calls the C library: ``_ctypes`` directly, and :mod:`ctypes` where it must."""
    real_abi()
    marker = tmp_path / "ran"
    hide = "" if direct else "import _ctypes; del _ctypes.call_function; "
    code = (f"import sys; {hide}sys.path.insert(0, {str(LAUNCHER.parent)!r}); import launch; "
            f"sys.exit(launch.main(['launch.py', '--landlock', '999', '--', '/bin/sh', '-c', 'echo > {marker}']))")
    done = subprocess.run([sys.executable, "-I", "-S", "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == REFUSED_EXIT and not marker.exists()
    assert done.stderr.strip() == (f"{PREFIX} cannot enter the Landlock domain (the command did not run): "
                                   "Bad file descriptor")
