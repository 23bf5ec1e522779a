"""Trees and listings shared by the tests of the planner's grep walk and of the secret rule's globs."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from ljtui.core.planner import grep_rg
from ljtui.core.planner.grep import find_rg
from ljtui.core.secret_files import KELVIN_SIGN, SecretFiles


def write(root: Path, rel: str, text: str) -> None:
    (root / rel).parent.mkdir(parents=True, exist_ok=True)
    (root / rel).write_text(text, encoding="utf-8")


@pytest.fixture(scope="module")
def names(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Files named by every default rule, in several cases and with a Kelvin sign, and look-alikes."""
    root = tmp_path_factory.mktemp("names")
    secret = [".env", ".ENV", ".Env.local", "a.pem", "A.PEM", "b.key", f"b.{KELVIN_SIGN}ey", "c.p12", "d.PFX",
              "e.ppk", "id_rsa", "ID_RSA.pub", "id_dsa", "id_ecdsa", "id_ed25519", "x_sk", f"x_s{KELVIN_SIGN}",
              ".npmrc", ".PYPIRC", ".netrc", ".pgpass", ".git-credentials", ".htpasswd", "credentials",
              "Credentials.json", "kubeconfig", f"{KELVIN_SIGN}ubeconfig", "kubeconfig.yaml", "kubeconfig.yml",
              "p.kubeconfig", "t.tfvars", "t.TFVARS.json", "my-service-account.json", "a_service_account_b.json",
              "serviceaccount.json", "gcp-sa-key.json", "deploy_SA_KEY.json", "client_secret_1.json",
              ".git/config", ".git/config.worktree", ".git/worktrees/w/config.worktree", "sub/.GIT/modules/m/config",
              ".kube/config", ".KUBE/config", f".{KELVIN_SIGN}ube/config", ".docker/config.json",
              "deep/er/.env.production"]
    plain = ["env.py", "keys.txt", "kubeconfig.go", "config.json", "config", "docker/config.json", "kube/config",
             ".kube/cache/config", "service_account.py", "service-account.yaml", "sa.json", ".git/HEAD",
             ".git/hooks/config.py", "pem/readme.md", "credentials.d/readme", ".envs/tool.txt", "id.py"]
    for rel in secret + plain:
        write(root, rel, "x\n")
    policy = SecretFiles()
    assert all(policy.is_secret(rel) for rel in secret) and not any(policy.is_secret(rel) for rel in plain)
    return root


def rg_files(root: Path, *globs: str, base: str = ".") -> set[str]:
    rg = find_rg()
    assert rg is not None
    out = subprocess.run([rg, "--files", "--null", *grep_rg.WALK, *globs, "--", base], cwd=root,
                         capture_output=True, check=False).stdout
    return {os.fsdecode(raw).removeprefix("./") for raw in out.split(b"\0") if raw}
