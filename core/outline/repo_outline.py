"""One repository's outline as the session's secret-file policy lets it be read: for the system prompt
and the outline tools."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ljtui.core.outline import DEFAULT_BUDGET_TOKENS, build_index, find_symbol, outline, render_outline
from ljtui.core.secret_files import SecretFiles


class RepoOutline:
    """The outline of one repository, as the session's secret-file policy allows it to be read."""

    def __init__(self, root: Path, secrets: SecretFiles, budget_tokens: int = DEFAULT_BUDGET_TOKENS) -> None:
        self.root = root
        self.secrets = secrets
        self.budget_tokens = budget_tokens

    def prompt_text(self) -> str:
        """The ranked outline cut to the token budget, for the system prompt (disk work: call from a thread)."""
        return render_outline(build_index(self.root, secrets=self.secrets), budget_tokens=self.budget_tokens).text

    def outline(self, path: Any) -> Any:
        return outline(self.root, path, secrets=self.secrets)

    def find(self, name: Any) -> Any:
        return find_symbol(self.root, name, secrets=self.secrets)
