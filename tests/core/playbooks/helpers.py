"""Playbook files for tests: written by hand, as a user or a repository would leave them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Sequence

STAMP = "2026-01-01T00:00:00.000Z"


def playbook_text(pid: str, title: str, *, status: str = "active", tags: Sequence[str] = (), when: str = "",
                  sop: Sequence[str] = ("Do the thing",), body: str = "", ok: int = 0, fail: int = 0,
                  scope: str = "project") -> str:
    """A playbook file as PB-1 writes it."""
    q = lambda value: json.dumps(value, ensure_ascii=False)  # noqa: E731
    steps = "\n".join(f"{n}. {step}" for n, step in enumerate(sop, start=1))
    return (f"---\nid: {q(pid)}\ntitle: {q(title)}\nstatus: {q(status)}\nscope: {q(scope)}\n"
            f"tags: {q(list(tags))}\nwhen_to_use: {q(when)}\ncreated: {q(STAMP)}\nupdated: {q(STAMP)}\n"
            f"source_session: null\nstats:\n  uses: {ok + fail}\n  ok: {ok}\n  fail: {fail}\n  last_used: null\n"
            f"  last_outcome: null\n---\n# {title}\n\n## When to use\n\n{when}\n\n## SOP\n\n{steps}\n\n"
            f"## Pitfalls\n\n{body}\n")


def write_playbook(folder: Path, pid: str, title: str, **fields: object) -> Path:
    """Write ``<folder>/<pid>.md`` and return its path."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{pid}.md"
    path.write_text(playbook_text(pid, title, **fields), encoding="utf-8")  # type: ignore[arg-type]
    return path


def repo_playbooks(root: Path) -> Path:
    """The repository's playbook folder."""
    return root / ".agent" / "playbooks"


FIXTURE_LIBRARY: tuple[tuple[str, str, dict[str, object]], ...] = (
    ("windows-sandbox-build", "Windows 沙箱里跑构建",
     {"tags": ["windows", "sandbox", "build"], "when": "需要在沙箱内执行 pnpm/node 构建时",
      "sop": ["在沙箱里安装依赖", "运行 pnpm build"], "ok": 2, "fail": 1}),
    ("dsh-host", "为 DSH 开发并热装本地 Host 插件",
     {"tags": ["dsh", "plugin"], "when": "开发或热装 DSH Host 插件时", "sop": ["写插件", "npm test", "重启 DSH"],
      "body": "改 lib 里的代码必须重启 DSH 才生效", "ok": 1, "fail": 2}),
    ("release-python-package", "Release a Python package to PyPI",
     {"tags": ["python", "release"], "when": "when a new version of the package must be published",
      "sop": ["Bump the version", "Build the wheel", "Upload with twine"], "body": "Forgetting to tag the build"}),
    ("python-build-cache", "Speed up the Python build",
     {"tags": ["python", "build"], "when": "when CI builds are slow",
      "sop": ["Cache the wheels", "Reuse the virtualenv"], "ok": 3}),
    ("flaky-build-fix", "Fix a flaky build",
     {"tags": ["build"], "when": "when the build fails now and then", "sop": ["Rerun with logs"], "fail": 3,
      "status": "deprecated"}),
    ("pb-1a2b3c4d", "数据库迁移回滚",
     {"tags": ["数据库", "迁移"], "when": "迁移失败需要回滚时", "sop": ["停止服务", "执行回滚脚本"], "status": "draft"}),
    ("japanese-release", "リリース手順の確認",
     {"tags": ["release"], "when": "リリース前にビルドを確認するとき", "sop": ["ビルドを実行する"]}),
)
"""A small library over several languages: (id, title, fields)."""


def write_fixture_library(folder: Path) -> None:
    """Write :data:`FIXTURE_LIBRARY` into ``folder``."""
    for pid, title, fields in FIXTURE_LIBRARY:
        write_playbook(folder, pid, title, **fields)
