"""Which MCP servers a session may start: the user's ``mcp.servers``, and a repository's ``.mcp.json`` read as
untrusted input."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from ljtui.core.config import load_config, trust_would_enable
from ljtui.core.mcp.config import MAX_MCP_JSON_BYTES, McpServerConfig, parse_mcp_json, read_repo_servers


def user_config(tmp_path: Path, text: str) -> dict[str, str]:
    cfg = tmp_path / "user.yaml"
    cfg.write_text(text, encoding="utf-8")
    return {"LJTUI_CONFIG": str(cfg)}


def test_the_users_servers_load_as_typed_records(tmp_path: Path) -> None:
    env = user_config(tmp_path, "mcp:\n  servers:\n"
                                "    time: {command: mcp-server-time, args: ['--local-timezone', 'UTC']}\n"
                                "    docs: {url: 'http://127.0.0.1:9/mcp', headers: {Authorization: Bearer x}}\n"
                                "    search: {command: mcp-search, network: true}\n"
                                "  call_timeout: 5\n")
    loaded = load_config(None, env=env)
    assert loaded.warnings == []
    servers = loaded.config.mcp.servers
    assert servers["time"] == McpServerConfig(command="mcp-server-time", args=["--local-timezone", "UTC"])
    assert servers["time"].transport == "stdio" and servers["docs"].transport == "http"
    assert servers["docs"].headers == {"Authorization": "Bearer x"}
    assert servers["search"].network is True and servers["time"].network is False
    assert loaded.config.mcp.call_timeout == 5.0 and loaded.config.mcp.allow_read_only is False


@pytest.mark.parametrize(("servers", "problem"), [
    ("{a: {command: x, url: 'http://h/'}}", "needs exactly one of 'command' (stdio) or 'url'"),
    ("{a: {}}", "needs exactly one of 'command' (stdio) or 'url'"),
    ("{'bad name': {command: x}}", "server name 'bad name' must be 1 to 24 letters"),
    ("{a: {url: 'file:///etc/passwd'}}", "'url' must start with http:// or https://"),
    ("{a: {url: 'http://h/', args: [x]}}", "'args', 'env', 'cwd' and 'network' are for a 'command' server"),
    ("{a: {command: x, headers: {k: v}}}", "'headers' are for a 'url' server"),
    ("{a: {command: x, cwd: relative/dir}}", "'cwd' must be absolute or start with ~/"),
    ("{a: {command: x, shell: true}}", "has unknown key 'shell'"),
    ("{a: {command: x, args: oops}}", "must be a list"),
])
def test_a_bad_user_server_is_a_warning_naming_it_and_no_server_starts(tmp_path: Path, servers: str,
                                                                       problem: str) -> None:
    loaded = load_config(None, env=user_config(tmp_path, f"mcp:\n  servers: {servers}\n"))
    assert loaded.config.mcp.servers == {}
    [warning] = loaded.warnings
    assert "'mcp.servers'" in warning and problem in warning and warning.endswith("default kept"), warning


def test_a_repositorys_config_file_can_never_name_servers_even_when_trusted(git_repo: Path) -> None:
    (git_repo / ".agent").mkdir(exist_ok=True)
    (git_repo / ".agent" / "config.yaml").write_text("mcp:\n  servers: {x: {command: touch}}\n  allow_read_only: true\n")
    loaded = load_config(git_repo, env={"LJTUI_CONFIG": str(git_repo / "none.yaml")}, trusted=True)
    assert loaded.config.mcp.servers == {} and loaded.config.mcp.allow_read_only is False
    assert any("'mcp.servers' can only be set in your own config file" in w for w in loaded.warnings)


def mcp_json(document: object) -> bytes:
    return json.dumps(document).encode()


def test_a_committed_mcp_json_in_claude_codes_format_gives_its_servers(tmp_path: Path) -> None:
    (tmp_path / ".mcp.json").write_bytes(mcp_json({"mcpServers": {
        "git": {"command": "mcp-server-git", "args": ["--repository", "."]},
        "remote": {"type": "http", "url": "https://example.com/mcp", "headers": {"X-Key": "k"}},
        "plain": {"type": "stdio", "command": "srv", "env": {"MODE": "1"}},
    }}))
    read = read_repo_servers(tmp_path)
    assert read.problems == ()
    assert read.servers["git"] == McpServerConfig(command="mcp-server-git", args=["--repository", "."])
    assert read.servers["remote"].url == "https://example.com/mcp" and read.servers["remote"].transport == "http"
    assert read.servers["plain"].env == {"MODE": "1"}


def test_no_mcp_json_is_no_server_and_no_problem(tmp_path: Path) -> None:
    assert read_repo_servers(tmp_path).servers == {} and read_repo_servers(tmp_path).problems == ()


@pytest.mark.parametrize(("document", "problem"), [
    (b"{not json", ".mcp.json is not valid JSON"),
    (b"\xff\xfe", ".mcp.json is not valid JSON"),
    (b"[]", 'has no "mcpServers" object'),
    (mcp_json({"servers": {}}), 'has no "mcpServers" object'),
    (mcp_json({"mcpServers": {f"s{n}": {"command": "x"} for n in range(40)}}), "names 40 servers, at most 32"),
])
def test_a_broken_mcp_json_gives_no_server_and_says_why(document: bytes, problem: str) -> None:
    read = parse_mcp_json(document)
    assert read.servers == {}
    [said] = read.problems
    assert problem in said, said


@pytest.mark.parametrize(("entry", "problem"), [
    ({"type": "sse", "url": "http://h/sse"}, "has type 'sse'; ljtui speaks stdio and streamable HTTP"),
    ({"command": "x", "cwd": "/"}, "sets 'cwd': a repository's server starts in the repository"),
    ({"command": "x", "network": True}, "sets 'network': only your own config may give a server the network"),
    ({"type": "http", "command": "x"}, "of type 'http' needs a url"),
    ({"command": "x", "args": [["nested"]]}, "must be text"),
    ("just a string", "must be an object"),
    ({"url": "javascript:alert(1)"}, "'url' must start with http:// or https://"),
])
def test_a_bad_server_in_mcp_json_is_left_out_naming_it_and_the_others_are_kept(entry: object,
                                                                                  problem: str) -> None:
    read = parse_mcp_json(mcp_json({"mcpServers": {"bad": entry, "good": {"command": "srv"}}}))
    assert list(read.servers) == ["good"]
    [said] = read.problems
    assert said.startswith(".mcp.json: server 'bad'") and problem in said and said.endswith("left out"), said


def test_an_mcp_json_that_is_a_link_a_fifo_or_too_big_is_not_read(tmp_path: Path) -> None:
    outside = tmp_path / "outside.json"
    outside.write_bytes(mcp_json({"mcpServers": {"x": {"command": "x"}}}))
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / ".mcp.json").symlink_to(outside)
    assert read_repo_servers(repo).servers == {}
    assert read_repo_servers(repo).problems == (".mcp.json cannot be read: it is a symbolic link",)
    (repo / ".mcp.json").unlink()
    os.mkfifo(repo / ".mcp.json")  # opened without waiting for a writer, and refused as no regular file
    [said] = read_repo_servers(repo).problems
    assert said.startswith(".mcp.json cannot be read") and read_repo_servers(repo).servers == {}
    (repo / ".mcp.json").unlink()
    (repo / ".mcp.json").write_bytes(b" " * (MAX_MCP_JSON_BYTES + 1))
    assert read_repo_servers(repo).problems == (f".mcp.json is over {MAX_MCP_JSON_BYTES:,} bytes; not read",)


def test_trust_lists_the_servers_a_repository_would_start_and_a_trusted_one_holds_none_back(tmp_path: Path) -> None:
    from ljtui.core.startup import prepare
    from ljtui.core.trust import TrustStore

    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / ".mcp.json").write_bytes(mcp_json({"mcpServers": {
        "git": {"command": "mcp-server-git", "args": ["--repository", "."]},
        "remote": {"type": "http", "url": "https://example.com/mcp"}}}))
    env = {"XDG_CONFIG_HOME": str(tmp_path / "cfg"), "LJTUI_CONFIG": str(tmp_path / "none.yaml")}
    expected = ["start the MCP server git (.mcp.json): mcp-server-git --repository .",
                "start the MCP server remote (.mcp.json): at https://example.com/mcp"]
    assert trust_would_enable(repo, env) == expected
    assert prepare(repo, env).untrusted == expected, "a repository with only .mcp.json is asked about at start"
    TrustStore.for_env(env).trust(repo, now=1.0)
    assert load_config(repo, env).trusted and prepare(repo, env).untrusted == []
    (repo / ".mcp.json").write_bytes(mcp_json({"mcpServers": {"git": {"command": "other-marker-server"}}}))
    assert not load_config(repo, env).trusted, "trust is bound to the file's bytes"
    assert prepare(repo, env).untrusted == ["start the MCP server git (.mcp.json): other-marker-server"]
