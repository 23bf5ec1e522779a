"""docs/tools.md is the tools' contract: it must be what the registry gives the model."""

from __future__ import annotations

from pathlib import Path

from ljtui.core.agent.tools import agent_tools
from ljtui.core.agent.tools.docs import notes, render

DOC = Path(__file__).resolve().parents[3] / "docs" / "tools.md"


def test_docs_tools_md_is_generated_from_the_registry() -> None:
    assert DOC.read_text(encoding="utf-8") == render(), (
        "docs/tools.md is out of date: python -m ljtui.core.agent.tools.docs > docs/tools.md")


def test_every_tool_has_its_notes_and_a_schema_the_providers_accept() -> None:
    specs = agent_tools().specs
    assert set(notes()) == {s.name for s in specs}
    for spec in specs:
        schema = spec.input_schema
        assert schema["type"] == "object" and schema["additionalProperties"] is False, spec.name
        assert set(schema.get("required", ())) <= set(schema["properties"]), spec.name
