"""Helpers for planner tests: fixture paths, a recording scripted model, plans."""

from __future__ import annotations

import json
from pathlib import Path
from typing import AsyncIterator

from ljtui.core.providers.base import ChatRequest, Delta
from ljtui.core.providers.scripted import Script, ScriptedClient, ScriptedTurn

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "planner"
SAMPLE_REPO = FIXTURES / "sample_repo"
HANDBOOK = FIXTURES / "handbook" / "references"
RETRY_SCRIPT = FIXTURES / "retry_plan.yaml"


class RecordingClient:
    """A scripted model that also keeps every request it was sent."""

    provider = "scripted"
    model = "scripted"

    def __init__(self, *replies: str) -> None:
        self.inner = ScriptedClient(Script(Path("<test>"), [ScriptedTurn(text=r) for r in replies]))
        self.requests: list[ChatRequest] = []

    @property
    def played(self) -> int:
        return self.inner.played

    async def stream(self, request: ChatRequest) -> AsyncIterator[Delta]:
        self.requests.append(request)
        async for delta in self.inner.stream(request):
            yield delta

    async def aclose(self) -> None:
        return None

    def prompt(self, n: int) -> str:
        """The user message of the n-th request (0-based)."""
        return self.requests[n].messages[0].text


def action(name: str, **args: object) -> str:
    """A reply holding one fenced JSON action."""
    return f"Next step.\n\n```json\n{json.dumps({'action': name, **args})}\n```\n"


UPLOAD_LINE = "        response = self._client.put(url, data, timeout=self._timeout)\n"

GOOD_PLAN = f"""### EDIT 1

- file: `src/shipper/upload.py`
- where: `Uploader.send (~24)` — pass a longer timeout

```old
{UPLOAD_LINE}```

```new
        response = self._client.put(url, data, timeout=self._timeout * 2)
```

Doubles the timeout.

```json
{{"will_modify": ["Uploader.send"], "will_add": [], "will_remove": []}}
```
"""

BAD_ANCHOR_PLAN = GOOD_PLAN.replace("self._client.put(url, data, timeout=self._timeout)\n```\n\n```new",
                                    "self.client.put(url, data)\n```\n\n```new")
