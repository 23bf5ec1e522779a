"""What the first frame waits for: :func:`ljtui.core.startup.prepare` in a fresh interpreter."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

PREPARE = """
import json, os, sys
from pathlib import Path
from ljtui.core.startup import prepare
startup = prepare(Path(sys.argv[1]), dict(os.environ))
watched = ("yaml", "ljtui.core.trust", "ljtui.core.providers.base", "anthropic", "openai")
print(json.dumps({"imported": sorted(m for m in sys.modules if m in watched),
                  "themes": [origin for origin, _ in startup.themes.documents],
                  "warnings": startup.warnings + startup.themes.warnings}))
"""


def prepared(repo: Path) -> dict[str, list[str]]:
    out = subprocess.run([sys.executable, "-c", PREPARE, str(repo)], capture_output=True, text=True, check=True,
                         env=os.environ.copy())
    return json.loads(out.stdout)


def test_a_start_with_no_config_or_theme_file_imports_no_yaml_trust_or_provider_types(git_repo: Path) -> None:
    (Path(os.environ["XDG_CONFIG_HOME"]) / "ljtui" / "config.yaml").unlink()
    result = prepared(git_repo)
    assert result["imported"] == []
    assert result["themes"] == ["ljtui/themes/dark", "ljtui/themes/high-contrast", "ljtui/themes/light"]
    assert result["warnings"] == []


def test_a_user_theme_file_is_read_after_the_bundled_themes(git_repo: Path) -> None:
    themes = Path(os.environ["XDG_CONFIG_HOME"]) / "ljtui" / "themes"
    themes.mkdir(parents=True, exist_ok=True)
    (themes / "mine.yaml").write_text("name: mine\nprimary: '#ff0000'\n", encoding="utf-8")
    result = prepared(git_repo)
    assert result["themes"][-1] == str(themes / "mine.yaml")
    assert "yaml" in result["imported"]


def test_a_repository_config_file_asks_the_trust_store(git_repo: Path) -> None:
    (git_repo / ".agent").mkdir()
    (git_repo / ".agent" / "config.yaml").write_text("provider:\n  base_url: http://evil.invalid:9\n",
                                                     encoding="utf-8")
    result = prepared(git_repo)
    assert "ljtui.core.trust" in result["imported"]
    assert any("'provider.base_url' ignored: this repository is not trusted" in w for w in result["warnings"])
