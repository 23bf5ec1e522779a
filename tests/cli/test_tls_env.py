"""A broken TLS set-up in the environment, through the real ``ljtui run``: the variable, its value and what to
do, never an internal error; and no request is sent."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fakes.fixtures import FAKE_KEY
from tests.fakes.server import FakeSSEServer

TIMEOUT = 60
TLS_VARS = ("SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE")


def ljtui(repo: Path, tmp_path: Path, server: FakeSSEServer, provider: str, tls: dict[str, str],
          *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", *TLS_VARS)}
    env.update(XDG_CONFIG_HOME=str(tmp_path / "xdg"), XDG_STATE_HOME=str(tmp_path / "state"), **tls)
    url = server.url + ("/v1" if provider == "openai-compatible" else "")
    env["ANTHROPIC_API_KEY" if provider == "anthropic" else "OPENAI_API_KEY"] = FAKE_KEY
    return subprocess.run(
        [sys.executable, "-m", "ljtui.cli.main", "run", "--provider", provider, "--model", "m", "--base-url", url,
         "--repo", str(repo), *args, "what does greet do?"],
        capture_output=True, text=True, timeout=TIMEOUT, env=env, stdin=subprocess.DEVNULL)


@pytest.fixture
def server() -> FakeSSEServer:
    with FakeSSEServer(require_key=FAKE_KEY) as fake:
        yield fake  # type: ignore[misc]


PROVIDERS = ["anthropic", "openai-compatible"]
PATHS = [pytest.param((), id="routed"), pytest.param(("--chat",), id="chat")]


def refused(proc: subprocess.CompletedProcess[str], expected: str) -> None:
    assert proc.returncode == 1, proc.stderr
    assert "internal error" not in proc.stderr and "Traceback" not in proc.stderr
    assert "FileNotFoundError" not in proc.stderr
    assert f"ljtui run: {expected}" in proc.stderr.splitlines()


@pytest.mark.parametrize("flags", PATHS)
@pytest.mark.parametrize("provider", PROVIDERS)
def test_ssl_cert_file_naming_a_missing_file_says_which_variable_and_what_to_do(
        provider: str, flags: tuple[str, ...], repo: Path, tmp_path: Path, server: FakeSSEServer) -> None:
    missing = tmp_path / "x" / "y.pem"
    proc = ljtui(repo, tmp_path, server, provider, {"SSL_CERT_FILE": str(missing)}, *flags)
    refused(proc, f"SSL_CERT_FILE names {missing}, which does not exist; fix or unset SSL_CERT_FILE")
    assert server.requests == []


def test_ssl_cert_file_that_holds_no_certificate_is_named(repo: Path, tmp_path: Path, server: FakeSSEServer) -> None:
    junk = tmp_path / "junk.pem"
    junk.write_text("not a certificate\n", encoding="utf-8")
    proc = ljtui(repo, tmp_path, server, "anthropic", {"SSL_CERT_FILE": str(junk)}, "--chat")
    assert proc.returncode == 1 and "internal error" not in proc.stderr and "Exception ignored" not in proc.stderr
    [line] = [ln for ln in proc.stderr.splitlines() if "SSL_CERT_FILE" in ln]
    assert line.startswith(f"ljtui run: SSL_CERT_FILE names {junk}, whose certificates could not be loaded (")
    assert line.endswith("); fix or unset SSL_CERT_FILE")


def test_ssl_cert_file_naming_a_folder_is_named(repo: Path, tmp_path: Path, server: FakeSSEServer) -> None:
    proc = ljtui(repo, tmp_path, server, "anthropic", {"SSL_CERT_FILE": str(tmp_path)}, "--chat")
    refused(proc, f"SSL_CERT_FILE names {tmp_path}, which is not a file; fix or unset SSL_CERT_FILE")


@pytest.mark.parametrize("provider", PROVIDERS)
def test_ssl_cert_dir_naming_a_missing_folder_says_which_variable_and_what_to_do(
        provider: str, repo: Path, tmp_path: Path, server: FakeSSEServer) -> None:
    missing = tmp_path / "no-certs"
    proc = ljtui(repo, tmp_path, server, provider, {"SSL_CERT_DIR": str(missing)})
    refused(proc, f"SSL_CERT_DIR names {missing}, which does not exist; fix or unset SSL_CERT_DIR")
    assert server.requests == []


def test_requests_ca_bundle_is_not_read_by_the_sdks_so_it_changes_nothing(
        repo: Path, tmp_path: Path, server: FakeSSEServer) -> None:
    from tests.fakes import anthropic_api

    server.queue(anthropic_api.text_reply("It greets."))
    proc = ljtui(repo, tmp_path, server, "anthropic", {"REQUESTS_CA_BUNDLE": str(tmp_path / "none.pem")}, "--chat")
    assert proc.returncode == 0, proc.stderr
    assert "It greets." in proc.stdout
