"""Layer 2: `orbit mcp` driven by the official SDK client. Every tool end to end over stdio in
a real subprocess, as an agent runs it, and Ctrl-C; the rest of the tests talk to the same
server in memory (the SDK's own in-process transport): what they check is the tools'
schemas and answers, and a server process costs a second of imports each."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from tests.testing import ORBIT_BIN, orbit_in_process

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

EXPECTED_TOOLS = {
    "orbit_learning_add": {
        "summary",
        "paths",
        "tags",
        "body",
        "evidence",
        "priority",
        "created_by",
        "force",
    },
    "orbit_learning_propose": {"summary", "body", "paths", "tags", "evidence", "created_by"},
    "orbit_learning_list": {"path", "tag", "status", "limit"},
    "orbit_learning_show": {"id"},
    "orbit_learning_update": {"id", "summary", "body", "paths", "tags", "priority", "evidence"},
    "orbit_learning_supersede": {"id", "with"},
    "orbit_learning_upvote": {"id", "model", "task"},
    "orbit_search": {"kind", "query", "tag", "path", "limit", "all", "status"},
}


def run(root: Path, scenario: Any, *args: str, stdio: bool = False) -> Any:
    """`scenario(client)` against `orbit mcp ARGS` in `root`: a real `orbit mcp` process over
    stdio, or (the default) the server `orbit mcp` would build, in memory."""
    server: StdioServerParameters | MCPServer
    if stdio:
        server = StdioServerParameters(command=str(ORBIT_BIN), args=["mcp", *args], cwd=str(root))
    else:
        server = in_memory(root, *args)

    async def main() -> Any:
        async with Client(server, read_timeout_seconds=60) as client:
            return await scenario(client)

    return asyncio.run(main())


def in_memory(root: Path, *args: str) -> MCPServer:
    """The server `orbit mcp ARGS` serves in `root`, built as the command builds it."""
    from orbit_learnings.cli.state import STATE
    from orbit_learnings.integrations.mcp.server import build_server

    assert set(args) <= {"--dotted-names"}, args
    STATE.root = str(root)
    try:
        return build_server(STATE.workspace(), dotted_names="--dotted-names" in args)
    finally:
        STATE.root = None


def text_json(result: Any) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(result.content[0].text)
    return data


def attached(answer: dict[str, object]) -> list[dict[str, Any]]:
    """The learnings `attach_learnings` added to a tool's answer."""
    learnings = answer["learnings"]
    assert isinstance(learnings, list)
    return learnings


def test_tools_are_listed_with_readable_schemas(workspace: Path) -> None:
    async def scenario(client: Client) -> Any:
        return (await client.list_tools()).tools

    tools = run(workspace, scenario)
    assert {t.name: set(t.input_schema["properties"]) for t in tools} == EXPECTED_TOOLS
    for tool in tools:
        assert tool.description, tool.name
    add = next(t for t in tools if t.name == "orbit_learning_add")
    assert add.input_schema["required"] == ["summary"]


def test_dotted_names_option(workspace: Path) -> None:
    async def scenario(client: Client) -> Any:
        return {t.name for t in (await client.list_tools()).tools}

    assert run(workspace, scenario, "--dotted-names") == {
        "orbit.learning.add",
        "orbit.learning.propose",
        "orbit.learning.list",
        "orbit.learning.show",
        "orbit.learning.update",
        "orbit.learning.supersede",
        "orbit.learning.upvote",
        "orbit.search",
    }


def test_every_tool_end_to_end_with_learnings_attached(workspace: Path) -> None:
    async def scenario(client: Client) -> dict[str, Any]:
        out: dict[str, Any] = {}
        out["add1"] = await client.call_tool(
            "orbit_learning_add",
            {
                "summary": "Migrations run in a transaction",
                "paths": ["db/migrations/**"],
                "tags": ["database"],
                "body": "See db/migrations/0001_init.sql for the pattern.",
                "evidence": [{"kind": "task", "ref": "T-1"}],
            },
        )
        out["add2"] = await client.call_tool(
            "orbit_learning_add",
            {
                "summary": "Use the migration helper",
                "paths": ["db/**"],
                "created_by": "claude",
            },
        )
        out["add3"] = await client.call_tool(
            "orbit_learning_add", {"summary": "Old way", "tags": ["database"]}
        )
        out["list"] = await client.call_tool(
            "orbit_learning_list", {"path": ["db/migrations/0002.sql"]}
        )
        out["show"] = await client.call_tool("orbit_learning_show", {"id": "L-0001"})
        out["update"] = await client.call_tool(
            "orbit_learning_update", {"id": "L-0002", "priority": 2}
        )
        out["upvote"] = await client.call_tool(
            "orbit_learning_upvote", {"id": "L-0001", "model": "claude", "task": "T-2"}
        )
        out["supersede"] = await client.call_tool(
            "orbit_learning_supersede", {"id": "L-0003", "with": "L-0001"}
        )
        out["search"] = await client.call_tool(
            "orbit_search", {"kind": "learning", "query": "transaction"}
        )
        out["search_path"] = await client.call_tool(
            "orbit_search", {"path": ["db/migrations/0003.sql"]}
        )
        out["missing"] = await client.call_tool("orbit_learning_show", {"id": "L-0404"})
        out["bad_kind"] = await client.call_tool("orbit_search", {"kind": "task", "query": "x"})
        return out

    out = run(workspace, scenario, stdio=True)
    assert out["add1"].structured_content["id"] == "L-0001"
    assert {h["id"] for h in out["list"].structured_content["learnings"]} == {"L-0001", "L-0002"}
    show = out["show"].structured_content
    assert show["summary"] == "Migrations run in a transaction" and show["vote_count"] == 0
    # The body mentions db/migrations/0001_init.sql: the attached learnings bring L-0002 (not L-0001 itself).
    assert show["learnings"] == [{"id": "L-0002", "summary": "Use the migration helper"}]
    assert text_json(out["show"])["learnings"] == show["learnings"]  # text content carries it too
    assert out["update"].structured_content["priority"] == 2
    assert out["upvote"].structured_content == {**out["upvote"].structured_content, "vote_count": 1}
    superseded = out["supersede"].structured_content
    assert (
        superseded["old"]["status"] == "superseded" and superseded["new"]["supersedes"] == "L-0003"
    )
    results = out["search"].structured_content["results"]
    assert (
        results[0]["id"] == "L-0001" and results[0]["kind"] == "learning" and "score" in results[0]
    )
    assert {r["id"] for r in out["search_path"].structured_content["results"]} == {
        "L-0001",
        "L-0002",
    }
    assert out["missing"].is_error and "no learning L-0404" in out["missing"].content[0].text
    assert out["bad_kind"].is_error
    assert (workspace / ".orbit/learnings/L-0003/learning.yaml").read_text().count(
        "superseded_by: L-0001"
    ) == 1


def test_attaching_honours_caps_and_session(workspace: Path) -> None:
    from orbit_learnings.core.scope import Scope
    from orbit_learnings.push.attach import attach_learnings, mentioned_paths
    from orbit_learnings.store import bundles as store
    from orbit_learnings.store.workspace import Workspace

    ws = Workspace(workspace)
    for n in range(7):
        store.create_learning(ws, store.NewLearning(f"s{n}", Scope(["src/**"])))
    result: dict[str, object] = {
        "files": ["src/app/main.py", "README"],
        "note": "see ./src/app/util.py, and https://x.io/a.py",
    }
    assert [p.text for p in mentioned_paths(ws, result)] == ["src/app/main.py", "src/app/util.py"]
    first = attach_learnings(ws, result, {"path": "src/x.py"}, session_id="mcp-s")
    assert first["files"] == result["files"] and len(attached(first)) == 5
    second = attach_learnings(ws, result, session_id="mcp-s")
    assert len(attached(second)) == 2
    assert not {x["id"] for x in attached(first)} & {x["id"] for x in attached(second)}
    assert attach_learnings(ws, {"text": "nothing here"})["learnings"] == []


@pytest.mark.parametrize("bad", ["/etc/passwd", "../outside/file.py"])
def test_attaching_ignores_paths_outside_the_workspace(workspace: Path, bad: str) -> None:
    from orbit_learnings.push.attach import mentioned_paths
    from orbit_learnings.store.workspace import Workspace

    assert mentioned_paths(Workspace(workspace), {"p": bad}) == []


def test_schemas_accept_one_string_offer_enums_and_say_what_each_tool_does(
    workspace: Path,
) -> None:
    async def scenario(client: Client) -> Any:
        return {t.name: t for t in (await client.list_tools()).tools}

    tools = run(workspace, scenario)
    listing = tools["orbit_learning_list"].input_schema["properties"]
    kinds = {option.get("type") for option in listing["path"]["anyOf"]}
    assert {"string", "array", "null"} <= kinds  # one path or several
    assert listing["status"]["enum"] == ["active", "proposed", "superseded", "archived", "all"]
    assert listing["status"]["default"] == "active"
    search = tools["orbit_search"].input_schema["properties"]
    assert search["status"]["default"] == "active"
    assert search["kind"].get("enum", [search["kind"].get("const")]) == ["learning"]
    for tool in tools.values():
        assert tool.title and tool.annotations is not None, tool.name
    read_only = {n for n, t in tools.items() if t.annotations.read_only_hint}
    assert read_only == {"orbit_learning_list", "orbit_learning_show", "orbit_search"}
    assert tools["orbit_learning_supersede"].annotations.destructive_hint is True
    assert tools["orbit_learning_upvote"].annotations.idempotent_hint is True


def test_a_single_string_where_a_list_is_expected_works(workspace: Path) -> None:
    """Models often send `path: "src/x.py"`; the tools answer instead of failing validation."""

    async def scenario(client: Client) -> dict[str, Any]:
        added = await client.call_tool(
            "orbit_learning_add",
            {"summary": "Retry the upload once on 409", "paths": "src/upload/**", "tags": "s3"},
        )
        listed = await client.call_tool("orbit_learning_list", {"path": "src/upload/put.py"})
        searched = await client.call_tool("orbit_search", {"path": "src/upload/put.py"})
        bad_status = await client.call_tool("orbit_learning_list", {"status": "learning:open"})
        return {"added": added, "listed": listed, "searched": searched, "bad": bad_status}

    out = run(workspace, scenario)
    assert not out["added"].is_error, out["added"].content
    assert [h["id"] for h in out["listed"].structured_content["learnings"]] == ["L-0001"]
    assert [r["id"] for r in out["searched"].structured_content["results"]] == ["L-0001"]
    assert out["bad"].is_error  # an enum, not a free string


def test_learnings_are_resources_and_the_prompts_are_listed(example: Path) -> None:
    async def scenario(client: Client) -> dict[str, Any]:
        return {
            "resources": (await client.list_resources()).resources,
            "templates": (await client.list_resource_templates()).resource_templates,
            "index": await client.read_resource("orbit://learnings"),
            "one": await client.read_resource("orbit://learnings/L-0002"),
            "prompts": (await client.list_prompts()).prompts,
            "review": await client.get_prompt("review-path", {"path": "db/migrations/"}),
            "capture": await client.get_prompt(
                "capture-learning", {"what_happened": "the cache key forgot the tenant"}
            ),
        }

    out = run(example, scenario)
    assert [str(r.uri) for r in out["resources"]] == ["orbit://learnings"]
    assert [t.uri_template for t in out["templates"]] == ["orbit://learnings/{learning_id}"]
    index_text = out["index"].contents[0].text
    assert "- L-0002: " in index_text and "- L-0003: " in index_text
    assert "L-0001" not in index_text  # superseded: the index lists active learnings
    one = out["one"].contents[0].text
    assert one.startswith("# L-0002: ") and "- paths:" in one
    assert {p.name for p in out["prompts"]} == {"capture-learning", "review-path"}
    assert "db/migrations/" in out["review"].messages[0].content.text
    assert "orbit_learning_upvote" in out["capture"].messages[0].content.text


def test_an_agent_proposes_and_nothing_is_served_until_a_person_approves(
    workspace: Path,
) -> None:
    async def propose(client: Client) -> Any:
        made = await client.call_tool(
            "orbit_learning_propose",
            {
                "summary": "Store money as integer cents, never floats",
                "body": 'The user: "no floats for money here".',
                "paths": ["billing/**"],
                "evidence": [{"kind": "session", "ref": "7f0c2f7e"}],
                "created_by": "claude",
            },
        )
        listed = await client.call_tool("orbit_learning_list", {"path": "billing/invoice.py"})
        return text_json(made), text_json(listed)

    made, listed = run(workspace, propose)
    assert made["status"] == "proposed" and listed["learnings"] == []
    text = (workspace / ".orbit/learnings" / made["id"] / "learning.yaml").read_text()
    assert "status: proposed" in text and "session" in text
    approved = orbit_in_process("learning", "approve", made["id"], cwd=workspace)
    assert approved.code == 0, approved.err

    async def list_again(client: Client) -> Any:
        return text_json(
            await client.call_tool("orbit_learning_list", {"path": "billing/invoice.py"})
        )

    assert [r["id"] for r in run(workspace, list_again)["learnings"]] == [made["id"]]


def test_the_server_stops_on_the_first_ctrl_c(workspace: Path) -> None:
    """Measured on main: the first SIGINT was swallowed; only a second one, or Ctrl-D, ended
    it. The 30 s is a hang guard, not a timing assertion."""
    import signal
    import subprocess

    server = subprocess.Popen(
        [str(ORBIT_BIN), "mcp"],
        cwd=workspace,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    request = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    assert server.stdin is not None and server.stdout is not None
    server.stdin.write((json.dumps(request) + "\n").encode())
    server.stdin.flush()
    assert b'"id":1' in server.stdout.readline().replace(b" ", b"")  # serving, loop running
    server.send_signal(signal.SIGINT)
    try:
        code = server.wait(timeout=30)
    finally:
        server.kill()
    assert code == 130


def test_mcp_add_refuses_a_tag_with_a_space(workspace: Path) -> None:
    async def scenario(client: Client) -> Any:
        return await client.call_tool(
            "orbit_learning_add", {"summary": "Index every foreign key", "tags": ["data base"]}
        )

    refused = run(workspace, scenario)
    assert refused.is_error and "tag 'data base' has a space" in refused.content[0].text
    assert not list((workspace / ".orbit/learnings").glob("L-*"))
