"""Moments found from what happened, each signal shaped after a real public session.

Each case below follows a session of the capture tuning set (tests/eval/capture/tuning),
trimmed to the records that carry the moment and written the way Claude Code and Codex
CLI write them today. Before these signals the tuning set covered 0.56 of its lessons:
a refusal with no words, a missing script replaced by another, a configuration file named
`eslint.config.js`, a command that never returned, a path the agent could not reach, and a
message the agent wrote into CLAUDE.md were all missed.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from orbit_learnings.curation.capture import moments
from orbit_learnings.curation.capture.extract import extract_sessions
from orbit_learnings.curation.capture.readers import read_session
from tests.features.authoring import codex_records

REFUSED = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it "
    "was a file edit, the new_string was NOT written to the file). STOP what you are doing and "
    "wait for the user to tell you how to proceed."
)


def _claude(tmp_path: Path, events: list[tuple[object, ...]], cwd: str = "/home/dev/shop") -> str:
    """A Claude Code session: ("user"|"assistant", text), ("call", id, tool, input),
    ("result", id, text, is_error)."""
    rows = []
    for number, event in enumerate(events):
        role, content = _claude_message(event)
        rows.append({
            "parentUuid": f"u{number - 1}" if number else None, "isSidechain": False,
            "userType": "external", "cwd": cwd, "sessionId": "4390c09a", "version": "2.1.90",
            "type": role, "uuid": f"u{number}", "timestamp": f"2026-11-20T10:{number:02d}:00Z",
            "message": {"role": role, "content": content},
        })  # fmt: skip
    path = tmp_path / "claude.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return str(path)


def _claude_message(event: tuple[object, ...]) -> tuple[str, object]:
    kind = event[0]
    if kind == "call":
        _, call_id, name, tool_input = event
        return "assistant", [{"type": "tool_use", "id": call_id, "name": name, "input": tool_input}]
    if kind == "result":
        _, call_id, text, is_error = event
        block = {"tool_use_id": call_id, "type": "tool_result", "content": text}
        return "user", [block | ({"is_error": True} if is_error else {})]
    if kind == "assistant":
        return "assistant", [{"type": "text", "text": event[1]}]
    return "user", event[1]


_codex = codex_records.rollout


def _found(path: str) -> list[moments.Moment]:
    return moments.find_moments(read_session(path, max_bytes=1 << 20))


def test_a_refusal_without_a_word_is_a_moment_quoting_what_the_agent_meant(
    tmp_path: Path,
) -> None:
    test = "/home/dev/shop/web/tests/loading-test.ts"
    session = _claude(tmp_path, [
        ("user", "Write an Ember test for the loading state of the budget view."),
        ("assistant", "All tests pass. A linter added a `pauseTest()` on line 73; I'll remove it."),
        ("call", "toolu_1", "Edit", {"file_path": test, "old_string": "await this.pauseTest();",
                                     "new_string": ""}),
        ("result", "toolu_1", REFUSED, True),
        ("user", "[Request interrupted by user for tool use]"),
    ])  # fmt: skip
    (moment,) = _found(session)
    assert (moment.kind, moment.lines) == ("refused", [3, 4])
    assert "pauseTest" in moment.said and moment.files == [test]
    assert moment.edits == [(test, "await this.pauseTest();", "")]


def test_a_refusal_with_its_reason_stays_one_rejection(tmp_path: Path) -> None:
    reason = "The user provided the following reason for the rejection: keep pauseTest, I use it"
    session = _claude(tmp_path, [
        ("user", "Write the loading test."),
        ("call", "toolu_1", "Edit", {"file_path": "/home/dev/shop/t.ts", "old_string": "a",
                                     "new_string": ""}),
        ("result", "toolu_1", f"{REFUSED}\n{reason}", True),
    ])  # fmt: skip
    assert [m.kind for m in _found(session)] == ["rejection"]


def test_a_missing_script_then_the_one_that_runs_is_an_error_fix(tmp_path: Path) -> None:
    missing = 'Usage Error: Couldn\'t find a script named "test:web".\n\n$ yarn run [--inspect] …'
    session = _claude(tmp_path, [
        ("user", "Add a test for the loading state and run it."),
        ("call", "toolu_1", "Bash", {"command": 'yarn test:web --filter="loading-state"'}),
        ("result", "toolu_1", missing, True),
        ("assistant", "Let me check the correct test command:"),
        ("call", "toolu_2", "Bash",
         {"command": 'cd /home/dev/shop/web && yarn test --filter="loading-state"'}),
        ("result", "toolu_2", "not ok 1 Chrome - loading state shows\n  expected: true", True),
    ])  # fmt: skip
    (moment,) = _found(session)
    assert (moment.kind, moment.lines, moment.operation) == ("error-fix", [2, 5], "yarn test:web")
    assert moment.fixed.endswith('yarn test --filter="loading-state"')
    assert "Couldn't find a script" in moment.error


def test_a_missing_command_then_another_program_is_no_moment(tmp_path: Path) -> None:
    session = _claude(tmp_path, [
        ("user", "Lint the project."),
        ("call", "toolu_1", "Bash", {"command": "ruff check ."}),
        ("result", "toolu_1", "bash: ruff: command not found", True),
        ("call", "toolu_2", "Bash", {"command": "npm run build"}),
        ("result", "toolu_2", "built in 2.1s", False),
    ])  # fmt: skip
    assert _found(session) == []


def test_a_configuration_file_is_known_by_its_shape(tmp_path: Path) -> None:
    cwd = "/Users/dev/lotto"
    failure = ("Oops! Something went wrong! :(\n\nESLint: 9.39.1\n\nError [ERR_MODULE_NOT_FOUND]: "
               f"Cannot find package 'typescript-eslint' imported from {cwd}/frontend/eslint.config.js")  # fmt: skip
    patch = ("*** Begin Patch\n*** Add File: frontend/eslint.config.js\n+import tsParser from "
             "'@typescript-eslint/parser';\n*** End Patch\n")  # fmt: skip
    session = _codex(tmp_path, [
        ("user", "npm run lint fails for lack of a config file; create it."),
        ("shell", "call_1", "npm run lint"), ("output", "call_1", failure, 2),
        ("patch", "call_2", patch), ("output", "call_2", "Success. Updated the following files:", 0),
        ("shell", "call_3", "npm run lint"), ("output", "call_3", "> eslint src", 0),
    ], cwd)  # fmt: skip
    (moment,) = _found(session)
    assert (moment.kind, moment.operation, moment.files) == (
        "error-fix", "npm run lint", ["frontend/eslint.config.js"],
    )  # fmt: skip


def test_a_command_that_never_returns_in_the_agents_shell_is_a_moment(tmp_path: Path) -> None:
    session = _claude(tmp_path, [
        ("user", "claude doctor"),
        ("call", "toolu_1", "Bash", {"command": "claude doctor 2>&1"}),
        ("result", "toolu_1", "Command running in background with ID: biz5wxa7f. Output is being "
                              "written to: /private/tmp/claude-501/tasks/biz5wxa7f.output", False),
        ("call", "toolu_2", "TaskOutput", {"task_id": "biz5wxa7f", "block": True, "timeout": 30000}),
        ("result", "toolu_2", "<retrieval_status>timeout</retrieval_status>\n\n<task_id>biz5wxa7f"
                              "</task_id>\n\n<status>running</status>", False),
        ("call", "toolu_3", "TaskStop", {"task_id": "biz5wxa7f"}),
        ("result", "toolu_3", '{"message":"Successfully stopped task: biz5wxa7f"}', False),
        ("assistant", "`claude doctor` started but printed nothing: it needs an interactive "
                      "terminal. Run it yourself."),
    ])  # fmt: skip
    (moment,) = _found(session)
    assert (moment.kind, moment.lines, moment.operation) == ("hang", [2, 5], "claude")
    assert moment.said.startswith("`claude doctor` started but printed nothing")


def test_a_server_the_agent_stops_is_ordinary_work(tmp_path: Path) -> None:
    session = _claude(tmp_path, [
        ("user", "Check the page renders."),
        ("call", "toolu_1", "Bash", {"command": "npm run dev", "run_in_background": True}),
        ("result", "toolu_1", "Command running in background with ID: b1.", False),
        ("call", "toolu_2", "BashOutput", {"bash_id": "b1"}),
        ("result", "toolu_2", "<retrieval_status>timeout</retrieval_status>", False),
        ("call", "toolu_3", "KillShell", {"shell_id": "b1"}),
        ("result", "toolu_3", "Shell b1 killed", False),
    ])  # fmt: skip
    assert _found(session) == []


def test_a_path_the_agent_cannot_reach_is_a_moment(tmp_path: Path) -> None:
    outside = _claude(tmp_path, [
        ("user", "¿Tienes acceso a C:\\Proyectos\\Jarvis?"),
        ("assistant", "No tengo acceso directo."),
        ("user", "Quiero que leas este archivo: C:\\Users\\David\\Documents\\notes.md"),
        ("call", "toolu_1", "Read", {"file_path": "C:\\Users\\David\\Documents\\notes.md"}),
        ("result", "toolu_1", "File does not exist. Note: your current working directory is "
                              "C:\\Windows\\System32.", True),
        ("assistant", "The file does not exist in the current directory (C:\\Windows\\System32)."),
    ], cwd="C:\\Windows\\System32")  # fmt: skip
    (moment,) = _found(outside)
    assert (moment.kind, moment.lines) == ("unreachable", [3, 5])
    assert moment.said.startswith("The file does not exist")


def test_a_path_of_another_system_than_the_agents_is_a_moment(tmp_path: Path) -> None:
    foreign = _claude(tmp_path, [
        ("user", "lam sao de toi gui file cho ban"),
        ("assistant", "Chỉ cần cho tôi biết đường dẫn file."),
        ("user", "C:\\Users\\admin\\Downloads\\files.zip"),
        ("assistant", "Bạn đang ở trên hệ thống Linux, không thể truy cập đường dẫn Windows."),
    ], cwd="/root")  # fmt: skip
    assert [(m.kind, m.lines) for m in _found(foreign)] == [("unreachable", [3])]


def test_a_missing_file_in_the_repository_is_ordinary_work(tmp_path: Path) -> None:
    session = _claude(tmp_path, [
        ("user", "Read /home/dev/shop/src/app.ts and tidy it."),
        ("call", "toolu_1", "Read", {"file_path": "/home/dev/shop/src/app.ts"}),
        ("result", "toolu_1", "File does not exist.", True),
    ])  # fmt: skip
    assert _found(session) == []


def test_a_message_the_agent_writes_into_claude_md_is_a_rule(tmp_path: Path) -> None:
    said = ("язык - русский, колонки таблицы - задача, результат, время, git не использую, "
            "план в виде шагов.")  # fmt: skip
    events: list[tuple[object, ...]] = [
        ("user", "Помоги составить CLAUDE.md для моего проекта."),
        ("assistant", "Уточню: язык файла, колонки таблицы?"),
        ("user", said),
        ("call", "toolu_1", "Write", {"file_path": "/Users/liza/ai-lessons/CLAUDE.md",
                                      "content": "# Правила\n- Язык: русский"}),
        ("result", "toolu_1", "File created successfully", False),
    ]  # fmt: skip
    kept = _found(_claude(tmp_path, events, cwd="/Users/liza/ai-lessons"))
    assert [(m.kind, m.said) for m in kept] == [("follow-up", said)]
    events[3] = ("call", "toolu_1", "Write", {"file_path": "/Users/liza/ai-lessons/plan.txt"})
    assert _found(_claude(tmp_path, events, cwd="/Users/liza/ai-lessons")) == []


def test_an_error_the_person_pastes_from_their_terminal_is_a_moment(tmp_path: Path) -> None:
    pasted = ("$ make decrypt-secrets\n./scripts/decrypt-secrets.sh\ndecrypting secret "
              "./apps/web/server/.env.production.local\n\nFATAL: Failed to decrypt "
              "./apps/web/server/.env.production.local\nExiting...\n\nmake: *** "
              "[decrypt-secrets] Error 1")  # fmt: skip
    session = _claude(tmp_path, [
        ("user", "how do i pull down the strongbox config"),
        ("assistant", "Copy the keys from 1Password to ~/.strongbox_keyring, run make decrypt-secrets."),
        ("user", pasted),
    ])  # fmt: skip
    assert [(m.kind, m.lines) for m in _found(session)] == [("pasted-error", [3])]


SPECKIT = (
    "## User Input\n\n```text\n{}\n```\n\nYou **MUST** consider the user input before proceeding "
    "(if not empty).\n\n## Outline\n\n1. **Setup**: Run `.specify/scripts/bash/setup-plan.sh "
    "--json` from repo root and parse JSON for FEATURE_SPEC, IMPL_PLAN. You must always …"
)


def test_a_prompt_a_command_expanded_is_the_harness_and_what_was_typed_the_person(
    tmp_path: Path,
) -> None:
    cwd = "/Users/dev/funke"
    session = _codex(tmp_path, [
        ("user", SPECKIT.format("")),  # /speckit.plan with nothing typed: the task
        ("patch", "call_1", "*** Begin Patch\n*** Update File: specs/plan.md\n*** End Patch\n"),
        ("output", "call_1", "Success.", 0),
        ("user", "adjust specs/plan.md so that it matches the stack in the spec; never Postgres"),
        ("patch", "call_2", "*** Begin Patch\n*** Update File: specs/plan.md\n*** End Patch\n"),
        ("output", "call_2", "Success.", 0),
        ("user", SPECKIT.format("T012, 13")),
    ], cwd)  # fmt: skip
    said = [t.text for t in read_session(session, max_bytes=1 << 20).turns if t.kind == "user"]
    assert said == ["", said[1], "T012, 13"]
    assert [(m.kind, m.lines) for m in _found(session)] == [("redo", [5])]


def test_agreeing_or_asking_without_a_question_mark_states_no_rule(tmp_path: Path) -> None:
    for said in ("Yes let's try option 1", "合并之后我的分支被删除,不删除会不会比较好"):
        session = _claude(tmp_path, [
            ("user", "Add a loading state test."),
            ("call", "toolu_1", "Bash", {"command": "yarn test"}),
            ("result", "toolu_1", "1 failed", True),
            ("assistant", "Option 1 or option 2?"),
            ("user", said),
        ])  # fmt: skip
        assert _found(session) == [], said


def test_refusing_to_let_the_agent_look_is_no_moment(tmp_path: Path) -> None:
    for call in (("Bash", {"command": "cd /home/dev/shop && git status --short"}),
                 ("Read", {"file_path": "/home/dev/shop/skills/blog/SKILL.md"})):  # fmt: skip
        session = _claude(tmp_path, [
            ("user", "Translate the blog-writing skill to Chinese."),
            ("assistant", "I'll read the skill's files first."),
            ("call", "toolu_1", *call),
            ("result", "toolu_1", REFUSED, True),
            ("user", "[Request interrupted by user for tool use]"),
        ])  # fmt: skip
        assert _found(session) == [], call[0]


def test_a_tool_missing_is_not_a_path_out_of_reach(tmp_path: Path) -> None:
    session = _claude(tmp_path, [
        ("user", "Tidy the onboarding notes."),
        ("assistant", "Which file?"),
        ("user", "/Users/lzy/code/onboarding.md please, keep the headings"),
        ("call", "toolu_1", "read", {"file_path": "/Users/lzy/code/onboarding.md"}),
        ("result", "toolu_1", "<tool_use_error>Error: No such tool available: read</tool_use_error>",
         True),
    ], cwd="/Users/lzy/code/shop")  # fmt: skip
    assert [m.kind for m in _found(session)] == []


def test_a_message_that_makes_the_agent_rerun_a_command_another_way_is_a_redo(
    tmp_path: Path,
) -> None:
    """A convention stated after a command ran (it succeeded: no failure to answer), which
    the agent then follows by running the same operation differently, in any language."""
    session = _claude(tmp_path, [
        ("user", "Run the migrations."),
        ("call", "toolu_1", "Bash", {"command": "cd /home/dev/shop && python manage.py migrate"}),
        ("result", "toolu_1", "Applied 3 migrations.", False),
        ("user", "在这个项目里要在容器里跑"),
        ("call", "toolu_2", "Bash", {"command": "docker compose exec web python manage.py migrate"}),
        ("result", "toolu_2", "No migrations to apply.", False),
    ])  # fmt: skip
    assert [(m.kind, m.lines) for m in _found(session)] == [("redo", [4])]


def test_running_the_same_command_again_after_a_message_is_no_redo(tmp_path: Path) -> None:
    session = _claude(tmp_path, [
        ("user", "Run the migrations."),
        ("call", "toolu_1", "Bash", {"command": "python manage.py migrate"}),
        ("result", "toolu_1", "Applied 3 migrations.", False),
        ("user", "and once more please"),
        ("call", "toolu_2", "Bash", {"command": "python manage.py migrate"}),
        ("result", "toolu_2", "No migrations to apply.", False),
    ])  # fmt: skip
    assert _found(session) == []


def test_a_command_that_works_once_run_inside_the_container_is_an_error_fix(
    tmp_path: Path,
) -> None:
    """Which container to run things in: the same operation fails here and passes inside
    `docker compose exec web`, and the change is named as the place it ran."""
    session = _claude(tmp_path, [
        ("user", "Run the migrations."),
        ("call", "toolu_1", "Bash", {"command": "cd /home/dev/shop && python manage.py migrate"}),
        ("result", "toolu_1", 'django.db.utils.OperationalError: could not translate host name "db"', True),
        ("call", "toolu_2", "Bash", {"command": "docker compose exec -T web python manage.py migrate"}),
        ("result", "toolu_2", "Applied 3 migrations.", False),
    ])  # fmt: skip
    (fix,) = _found(session)
    assert (fix.kind, fix.operation) == ("error-fix", "python manage.py migrate")
    assert fix.changes[0] == "inside `docker compose exec -T web`"
    (draft,) = extract_sessions([session], None).drafts  # the failure names the missing host
    assert draft.summary == "Run `python manage.py migrate` inside `docker compose exec -T web`"


def _pytest_then(tmp_path: Path, error: str, setup: str) -> str:
    return _claude(tmp_path, [
        ("user", "Add the login endpoint test."),
        ("call", "toolu_1", "Bash", {"command": "cd /home/dev/shop && uv run pytest -q tests/test_auth.py"}),
        ("result", "toolu_1", f"E   {error}\n1 failed in 0.31s", True),
        ("call", "toolu_2", "Bash", {"command": setup}),
        ("result", "toolu_2", "Successfully installed", False),
        ("call", "toolu_3", "Bash", {"command": "cd /home/dev/shop && uv run pytest -q tests/test_auth.py"}),
        ("result", "toolu_3", "1 passed in 0.28s", False),
    ])  # fmt: skip


def test_a_rerun_that_passes_after_pinning_a_package_is_an_error_fix_moment(tmp_path: Path) -> None:
    """passlib 1.7.4 and bcrypt 4: the test passed unchanged once bcrypt was pinned."""
    session = _pytest_then(
        tmp_path,
        "ValueError: password cannot be longer than 72 bytes (passlib.handlers.bcrypt)",
        "uv pip install 'bcrypt<4.0'",
    )
    (fix,) = _found(session)
    assert (fix.kind, fix.lines) == ("error-fix", [2, 4, 6])
    assert fix.changes == ["after `uv pip install 'bcrypt<4.0'`"]
    result = extract_sessions([session], None)  # whether the setup was the fix: the reviewer's
    assert result.drafts == [] and [m["why"] for m in result.undrafted] == [
        "a setup step: whether it is the fix is the reviewer's call"
    ]


def test_installing_the_package_new_code_imports_is_a_moment_too(tmp_path: Path) -> None:
    session = _pytest_then(tmp_path, "ModuleNotFoundError: No module named 'httpx'", "uv add httpx")
    assert [m.kind for m in _found(session)] == ["error-fix"]
    result = extract_sessions([session], None)
    assert result.drafts == []
    assert [m["why"] for m in result.undrafted] == [
        "a setup step: whether it is the fix is the reviewer's call"
    ]


# The cases below follow sessions of the fresh set (tests/eval/capture/fresh), which the
# code before them covered 1 of 6 lessons of, measured before any change was made for it.


def test_a_command_rerun_another_way_that_fails_differently_got_past_its_failure(
    tmp_path: Path,
) -> None:
    """Codex on Windows: dot-sourcing a quoted path inside -Command fails to parse; `&` gets
    past it (to a usage error). "Expected" inside PowerShell's error id is no test failure."""
    parse = ("Die Zeichenfolge hat kein Abschlusszeichen: '.\r\n    + CategoryInfo : ParserError: "
             "(:) [], ParentContainsErrorRecordException\r\n    + FullyQualifiedErrorId : "
             "TerminatorExpectedAtEndOfString")  # fmt: skip
    usage = "create-new-feature.ps1 : Usage: ./create-new-feature.ps1 [-Json] <feature description>"
    session = _codex(tmp_path, [
        ("user", "Lege die Feature-Spezifikation an."),
        ("shell", "call_1", "powershell -NoProfile -Command . '.specify/scripts/new.ps1' -Json x"),
        ("output", "call_1", parse, 1),
        ("shell", "call_2", "powershell -NoProfile -ExecutionPolicy Bypass -Command & .specify/scripts/new.ps1 -Json x"),
        ("output", "call_2", usage, 1),
    ], "E:\\ANPR\\anpr_system")  # fmt: skip
    (moment,) = _found(session)
    assert (moment.kind, moment.lines) == ("error-fix", [3, 5])
    assert "ParserError" in moment.error and "-ExecutionPolicy" in moment.fixed


def test_what_the_machine_refuses_and_never_allows_is_a_moment_without_a_draft(
    tmp_path: Path,
) -> None:
    denied = ("Exit code 1\nwarning: unable to unlink '.claude/commands/done.md': Permission denied\n"
              "error: Your local changes to the following files would be overwritten by checkout")  # fmt: skip
    session = _claude(tmp_path, [
        ("user", "Switch to main and pull."),
        ("call", "toolu_1", "Bash", {"command": "git status --short && git checkout main && git pull"}),
        ("result", "toolu_1", denied, True),
        ("assistant", "The .claude files are owned by another user in this container."),
    ], cwd="/workspace/riemannian_flow_det")  # fmt: skip
    (moment,) = _found(session)
    assert (moment.kind, moment.operation, moment.lines) == ("blocked", "git checkout", [2, 3])
    assert moment.error.endswith("Permission denied")
    result = extract_sessions([session], None)
    assert result.drafts == [] and [m["moment"] for m in result.undrafted] == ["blocked"]


def test_a_refusal_the_agent_then_gets_past_is_no_blocked_moment(tmp_path: Path) -> None:
    session = _claude(tmp_path, [
        ("user", "Install the hooks."),
        ("call", "toolu_1", "Bash", {"command": "cp hooks/pre-commit /usr/local/bin/"}),
        ("result", "toolu_1", "cp: /usr/local/bin/pre-commit: Permission denied", True),
        ("call", "toolu_2", "Bash", {"command": "cp hooks/pre-commit .git/hooks/"}),
        ("result", "toolu_2", "", False),
    ])  # fmt: skip
    assert [m.kind for m in _found(session)] == []


def test_a_failure_the_person_pastes_with_a_question_is_still_a_moment(tmp_path: Path) -> None:
    pasted = ("(base) mark@MacBook-Pro workspace %   code --install-extension anthropic.claude-code\n"
              "zsh: command not found: code\n(base) mark@MacBook-Pro workspace % 이라는데?")  # fmt: skip
    session = _claude(tmp_path, [
        ("user", "VS Code 확장 설치 오류 좀 안 뜨게 고쳐줘"),
        ("assistant", "Run `code --install-extension anthropic.claude-code` again."),
        ("user", pasted),
    ])  # fmt: skip
    assert [(m.kind, m.lines) for m in _found(session)] == [("pasted-error", [3])]


def test_the_harness_api_errors_are_not_the_agent_speaking(tmp_path: Path) -> None:
    path = Path(_claude(tmp_path, [
        ("user", "Why does this fail?"),
        ("assistant", "Not logged in · Please run /login"),
    ]))  # fmt: skip
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    rows[1]["message"]["model"] = "<synthetic>"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    kinds = [t.kind for t in read_session(str(path), max_bytes=1 << 20).turns]
    assert kinds == ["user", "injected"]


@pytest.mark.parametrize(
    ("task", "rule"),
    [
        ("请在 conda 环境 single_ptz 中开发。\n❗ 禁止使用 base 环境\n完成后提交。", "❗ 禁止使用 base 环境"),
        ("Add the export button. Never commit `.env.local`; the CI reads secrets from the vault.",
         "Never commit `.env.local`; the CI reads secrets from the vault."),
        ("Initialise un projet React avec Vite.\n1. npm install\n\nTout en français. Pas de any.",
         "Tout en français."),  # the language wanted, said with the task
        ("### 引き継ぎメモ\n- 設定: vercel.json は headers のみ。\n- 環境変数: OPENAI_API_KEY 必須、MOCK_OCR 任意。",
         "環境変数: OPENAI_API_KEY 必須、MOCK_OCR 任意。"),  # a handoff memo's requirement
    ],
)  # fmt: skip
def test_a_standing_rule_stated_with_the_task_is_a_moment(
    tmp_path: Path, task: str, rule: str
) -> None:
    session = _claude(tmp_path, [("user", task), ("assistant", "On it.")])
    assert [(m.kind, m.lines, m.said) for m in _found(session)] == [("stated", [1], rule)]


@pytest.mark.parametrize(
    "task",
    [
        "The page should always show the total. Make it responsive.",  # nothing concrete
        "NEVER break character until given an exit command.",  # a persona prompt
        "Why does `make test` never finish?",  # a question
        "The endpoint must return 404 for unknown `ids`.",  # the task's requirement
    ],
)
def test_the_task_itself_is_no_stated_rule(tmp_path: Path, task: str) -> None:
    session = _claude(tmp_path, [("user", task), ("assistant", "On it.")])
    assert _found(session) == []


@pytest.mark.parametrize(
    ("said", "kept"),
    [
        ("the integration tests need `docker compose up -d db` first", True),  # a fact, no cue
        ("now add a test for `parse_invoice`", False),  # the task's next step
        ("为什么我提交的pr有43个文件改动,明明代码只改动了一行", False),  # a question, no "?"
    ],
)
def test_a_later_statement_about_something_concrete_is_a_moment(
    tmp_path: Path, said: str, kept: bool
) -> None:
    session = _claude(tmp_path, [
        ("user", "Make the invoice tests pass."),
        ("call", "toolu_1", "Bash", {"command": "ls tests"}),
        ("result", "toolu_1", "test_invoice.py", False),
        ("user", said),
    ])  # fmt: skip
    assert [m.kind for m in _found(session)] == (["follow-up"] if kept else [])


# From a local corpus of 32 more public sessions (fetched, so kept out of git; see the
# closing note): what people say mid-session, read by what the agent does next.


def test_a_preference_the_agent_turns_into_a_setting_is_a_moment(tmp_path: Path) -> None:
    config = "/Users/dev/dotfiles/.config/ghostty/config"
    session = _claude(tmp_path, [
        ("user", "Tidy my terminal setup."),
        ("call", "toolu_1", "Bash", {"command": "ls ~/.config"}),
        ("result", "toolu_1", "ghostty zellij", False),
        ("user", "And I'd like to have brogrammer as my Ghostty theme."),
        ("call", "toolu_2", "Edit", {"file_path": config, "old_string": "theme = catppuccin-mocha",
                                     "new_string": "theme = brogrammer"}),
        ("result", "toolu_2", "The file has been updated.", False),
    ], cwd="/Users/dev/dotfiles")  # fmt: skip
    assert [(m.kind, m.lines) for m in _found(session)] == [("follow-up", [4])]


@pytest.mark.parametrize(
    ("said", "kept"),
    [
        ("should I uninstall github copilot chat then?", False),  # asks, rule word or not
        ("Could you also add this to README.md? In Obstruct, classes or structs are declared "
         "with the keyword `cls`.", True),  # asks, then states
        ("1", False),  # picks an option
        ("no, it still does not work", False),  # a report
    ],
)  # fmt: skip
def test_a_question_an_option_or_a_report_is_no_moment(
    tmp_path: Path, said: str, kept: bool
) -> None:
    session = _claude(tmp_path, [
        ("user", "Clean up my VS Code extensions."),
        ("call", "toolu_1", "Bash", {"command": "npm run build"}),
        ("result", "toolu_1", "error TS2304: Cannot find name 'cls'", True),
        ("user", said),
    ])  # fmt: skip
    assert bool(_found(session)) is kept


def test_codex_failed_in_sandbox_then_passing_escalated_is_an_error_fix(tmp_path: Path) -> None:
    """Codex writes a sandbox refusal as output, with no error flag: "failed in sandbox"."""
    denied = ("failed in sandbox: error: cannot lock ref 'HEAD': Unable to create "
              "'/Users/isaac/qna/.git/HEAD.lock': Operation not permitted")  # fmt: skip
    session = _codex(tmp_path, [
        ("user", "Create the feature branch."),
        ("shell", "call_1", ".specify/scripts/bash/create-new-feature.sh --json x"),
        ("output", "call_1", denied, 0),
        ("shell", "call_2", ".specify/scripts/bash/create-new-feature.sh --json x --escalated"),
        ("output", "call_2", "Switched to a new branch '001-x'", 0),
    ], "/Users/isaac/qna")  # fmt: skip
    assert [m.kind for m in _found(session)] == ["error-fix"]


def test_git_refusing_a_folder_until_it_is_marked_safe_is_an_error_fix(tmp_path: Path) -> None:
    dubious = "Exit code 128\nfatal: detected dubious ownership in repository at '/home/gt/town'"
    session = _claude(tmp_path, [
        ("user", "Commit the config."),
        ("call", "toolu_1", "Bash", {"command": "git commit -am 'config'"}),
        ("result", "toolu_1", dubious, True),
        ("call", "toolu_2", "Bash", {"command": "git config --global --add safe.directory /home/gt/town"}),
        ("result", "toolu_2", "", False),
        ("call", "toolu_3", "Bash", {"command": "git commit -am 'config'"}),
        ("result", "toolu_3", "[main 2e80a61] config", False),
    ], cwd="/home/gt/town")  # fmt: skip
    (fix,) = _found(session)
    assert fix.changes == ["after `git config --global --add safe.directory /home/gt/town`"]


@pytest.mark.parametrize(
    ("said", "kept"), [("exit", False), ("https://github.com/github/github-mcp-server", True)]
)
def test_a_word_interrupting_is_no_moment_but_a_bare_link_is(
    tmp_path: Path, said: str, kept: bool
) -> None:
    """ "exit" stops the agent and teaches nothing; a bare link points at the right thing
    (the official server, the repository to use) in any language."""
    session = _claude(tmp_path, [
        ("user", "Add the GitHub MCP server."),
        ("call", "toolu_1", "Edit", {"file_path": "/home/dev/shop/.codex/config.toml",
                                     "old_string": "[mcp]", "new_string": "[mcp.github]"}),
        ("result", "toolu_1", "[Request interrupted by user for tool use]", True),
        ("user", f"[Request interrupted by user for tool use]{said}"),
    ])  # fmt: skip
    assert [m.kind for m in _found(session)] == (["interruption"] if kept else [])


def test_a_rule_opening_with_do_not_is_no_question(tmp_path: Path) -> None:
    """ "Do" opens questions ("Do you…?") and rules ("Do not…"): only the first asks."""
    session = _claude(tmp_path, [
        ("user", "Add left-pad to the web app. Do not commit `.env.local` while you are at it."),
        ("call", "toolu_1", "Bash", {"command": "npm install left-pad"}),
        ("result", "toolu_1", "added 1 package", False),
        ("user", "Do not use npm in this repo, always use pnpm"),
    ])  # fmt: skip
    assert [m.kind for m in _found(session)] == ["stated", "follow-up"]


def test_output_that_only_mentions_a_refusal_is_not_blocked(tmp_path: Path) -> None:
    passing = "PASS perms.test.ts\n ✓ returns EACCES as 'Permission denied'\nTests: 1 passed"
    session = _claude(tmp_path, [
        ("user", "Run the permission tests."),
        ("call", "toolu_1", "Bash", {"command": "npm test -- perms"}),
        ("result", "toolu_1", passing, False),
    ])  # fmt: skip
    assert _found(session) == []


@pytest.mark.parametrize(
    ("between", "kept"),
    [("docker compose logs db", False), ("pip install nonexistent-pkg-xyz", False),
     ("pip3 install 'bcrypt<4.0'", True)],
)  # fmt: skip
def test_only_a_setup_step_that_worked_counts(tmp_path: Path, between: str, kept: bool) -> None:
    """A command that only looks (`docker compose logs`) or that failed is no setup step."""
    broken = "ERROR: No matching distribution found" if "nonexistent" in between else "ok"
    session = _claude(tmp_path, [
        ("user", "Make the auth tests pass."),
        ("call", "toolu_1", "Bash", {"command": "pytest -q"}),
        ("result", "toolu_1", "E   ValueError: password cannot be longer than 72 bytes", True),
        ("call", "toolu_2", "Bash", {"command": between}),
        ("result", "toolu_2", broken, "nonexistent" in between),
        ("call", "toolu_3", "Bash", {"command": "pytest -q"}),
        ("result", "toolu_3", "3 passed", False),
    ])  # fmt: skip
    assert [m.kind for m in _found(session)] == (["error-fix"] if kept else [])


# Guards the review found missing: each fails when its piece of the detectors is removed.


def test_codex_ide_context_is_the_editors_and_the_request_the_persons(tmp_path: Path) -> None:
    wrapped = ("# Context from my IDE setup:\n\n## Active file: src/app.py\n\n## Open tabs:\n"
               "- app.py: src/app.py\n\n## My request for Codex:\nnever use powershell here, "
               "always use the WSL terminal")  # fmt: skip
    session = _codex(tmp_path, [
        ("user", "Set up the project."),
        ("shell", "call_1", "ls"), ("output", "call_1", "src", 0),
        ("user", wrapped),
    ], "/home/dev/app")  # fmt: skip
    turns = read_session(session, max_bytes=1 << 20).turns
    assert [t.text for t in turns if t.kind == "user"][-1].startswith("never use powershell here")
    assert [m.said for m in _found(session)] == [
        "never use powershell here, always use the WSL terminal"
    ]


def test_a_timeout_reported_after_its_exit_code_is_a_hang(tmp_path: Path) -> None:
    session = _claude(tmp_path, [
        ("user", "Restart the services."),
        ("call", "toolu_1", "Bash", {"command": "gt shutdown"}),
        ("result", "toolu_1", "Exit code 143\nCommand timed out after 1m 0s Terminated", True),
        ("assistant", "The shutdown command is waiting for confirmation."),
    ])  # fmt: skip
    assert [m.kind for m in _found(session)] == ["hang"]


def test_a_long_conversation_keeps_one_moment_per_two_messages(tmp_path: Path) -> None:
    rules = [f"never edit `gen/file_{n}.py` by hand, regenerate it" for n in range(14)]
    events: list[tuple[object, ...]] = [("user", "Tidy the generated code.")]
    for n, rule in enumerate(rules):
        events += [("call", f"toolu_{n}", "Bash", {"command": f"ls gen/{n}"}),
                   ("result", f"toolu_{n}", "file.py", False), ("user", rule)]  # fmt: skip
    found = _found(_claude(tmp_path, events))
    assert len(found) == 7 > moments.PER_SESSION  # 15 messages: 7, not the floor of 5


def test_one_blocked_moment_per_operation(tmp_path: Path) -> None:
    denied = "Exit code 1\ncp: /usr/local/bin/x: Permission denied"
    session = _claude(tmp_path, [
        ("user", "Install the tools."),
        ("call", "toolu_1", "Bash", {"command": "cp x /usr/local/bin/"}),
        ("result", "toolu_1", denied, True),
        ("call", "toolu_2", "Bash", {"command": "cp y /usr/local/bin/"}),
        ("result", "toolu_2", denied, True),
    ])  # fmt: skip
    assert [m.kind for m in _found(session)] == ["blocked"]


def test_a_program_the_agent_keeps_reaching_for_that_is_not_installed_is_blocked(
    tmp_path: Path,
) -> None:
    """`rg` missing in a devcontainer: once without a word is no moment (agents try a tool
    and use another), twice with no run is what the next agent will meet too."""
    missing = "Exit code 127\n/bin/bash: line 1: rg: command not found"
    once: list[tuple[object, ...]] = [("user", "Find the templates."),
            ("call", "toolu_1", "Bash", {"command": "rg -n template"}),
            ("result", "toolu_1", missing, True)]  # fmt: skip
    assert _found(_claude(tmp_path, once)) == []
    twice: list[tuple[object, ...]] = [*once, ("call", "toolu_2", "Bash", {"command": "rg --files"}),
             ("result", "toolu_2", missing, True)]  # fmt: skip
    (moment,) = _found(_claude(tmp_path, twice))
    assert (moment.kind, moment.operation, moment.lines) == ("blocked", "rg", [2, 4])


@pytest.mark.parametrize("said", ["한글로 답변해줘.", "schreibe alles auf Deutsch", "用中文回答"])
def test_the_language_the_person_wants_is_a_moment(tmp_path: Path, said: str) -> None:
    session = _claude(tmp_path, [
        ("user", "Update the constitution."),
        ("call", "toolu_1", "Bash", {"command": "ls .specify"}),
        ("result", "toolu_1", "memory templates", False),
        ("user", said),
    ])  # fmt: skip
    assert [m.kind for m in _found(session)] == ["follow-up"]


def test_a_program_missing_once_that_the_agent_remarks_on_is_blocked(tmp_path: Path) -> None:
    """corpus-d (che-yjwj): "I'll check … with `find` (since `rg` isn't available here)"."""
    missing = "Process exited with code 127\nOutput:\n/bin/bash: line 1: rg: command not found"
    session = _claude(tmp_path, [
        ("user", "Tighten the templates' quality gates."),
        ("call", "toolu_1", "Bash", {"command": "rg -n 'Quality' .specify"}),
        ("result", "toolu_1", missing, True),
        ("assistant", "I'll check the runtime guidance with `find` (since `rg` isn't available "
                      "here) and then apply the edits."),
    ])  # fmt: skip
    (moment,) = _found(session)
    assert (moment.kind, moment.operation, moment.lines) == ("blocked", "rg", [2, 3])
    silent = _claude(tmp_path, [*[("user", "Tighten the templates' quality gates.")],
        ("call", "toolu_1", "Bash", {"command": "rg -n 'Quality' .specify"}),
        ("result", "toolu_1", missing, True),
        ("assistant", "Let me look at the templates another way."),
    ])  # fmt: skip
    assert _found(silent) == []


def test_a_rerun_that_passes_unchanged_after_the_person_spoke_is_an_error_fix(
    tmp_path: Path,
) -> None:
    """corpus-d (gouchan): `brew install gh` fails until the Xcode license is accepted, which
    only the person can do; they say "try again" and the same command passes."""
    license_error = (
        "Error: You have not agreed to the Xcode license. Please resolve this by "
        "running:\n  sudo xcodebuild -license accept"
    )
    events: list[tuple[object, ...]] = [
        ("user", "Set up a GitHub repo for this folder."),
        ("call", "toolu_1", "Bash", {"command": "brew install gh"}),
        ("result", "toolu_1", license_error, True),
        ("assistant", "Please run `sudo xcodebuild -license accept` in your terminal."),
        ("user", "okay try again option 1"),
        ("call", "toolu_2", "Bash", {"command": "brew install gh"}),
        ("result", "toolu_2", "==> Pouring gh--2.82.0.arm64_sequoia.bottle.tar.gz", False),
    ]
    (moment,) = _found(_claude(tmp_path, events))
    assert (moment.kind, moment.lines, moment.said) == (
        "error-fix",
        [2, 5, 6],
        "okay try again option 1",
    )
    assert moment.error.startswith("Error: You have not agreed to the Xcode license")
    result = extract_sessions([_claude(tmp_path, events)], None)
    assert result.drafts == []  # what the person did is the reviewer's to say
    told = [
        *events[:4],
        ("user", "run brew install gh --force"),
        ("call", "toolu_2", "Bash", {"command": "brew install gh --force"}),
        events[6],
    ]
    after_person = [m for m in _found(_claude(tmp_path, told)) if "person" in " ".join(m.changes)]
    assert after_person == []  # the person said what to run: the rerun changed, not the machine


def test_a_rerun_after_the_person_spoke_needs_a_failure_only_a_person_can_fix(
    tmp_path: Path,
) -> None:
    """Found by review: a timeout the person waves on ("ok"), or another test file run next,
    is no step of theirs."""
    flaky = _claude(tmp_path, [
        ("user", "Run the tests."),
        ("call", "toolu_1", "Bash", {"command": "npm test"}),
        ("result", "toolu_1", "npm ERR! network request failed, reason: ETIMEDOUT", True),
        ("user", "ok"),
        ("call", "toolu_2", "Bash", {"command": "npm test"}),
        ("result", "toolu_2", "Tests: 12 passed", False),
    ])  # fmt: skip
    assert [m for m in _found(flaky) if "person" in " ".join(m.changes)] == []
    other = _claude(tmp_path, [
        ("user", "Run the tests."),
        ("call", "toolu_1", "Bash", {"command": "gh pr create --fill"}),
        ("result", "toolu_1", "To get started with GitHub CLI, please run:  gh auth login", True),
        ("user", "try the other repo"),
        ("call", "toolu_2", "Bash", {"command": "gh pr create --fill --repo acme/web"}),
        ("result", "toolu_2", "https://github.com/acme/web/pull/7", False),
    ])  # fmt: skip
    assert [m for m in _found(other) if "person" in " ".join(m.changes)] == []


def test_a_code_edit_by_sed_between_a_failing_and_a_passing_test_is_ordinary_work(
    tmp_path: Path,
) -> None:
    """Found by review: `sed -i` and here-document scripts edit code too; only mode bits,
    folders and line endings are repairs of the environment."""
    session = _claude(tmp_path, [
        ("user", "Fix the calculator."),
        ("call", "toolu_1", "Bash", {"command": "pytest tests/test_calc.py"}),
        ("result", "toolu_1", "FAILED tests/test_calc.py::test_add - AssertionError: assert 3 == 4",
         True),
        ("call", "toolu_2", "Bash", {"command": "sed -i 's/a + b + 1/a + b/' src/calc.py"}),
        ("result", "toolu_2", "", False),
        ("call", "toolu_3", "Bash", {"command": "pytest tests/test_calc.py"}),
        ("result", "toolu_3", "1 passed", False),
    ])  # fmt: skip
    assert [m.kind for m in _found(session)] == []


def test_a_program_another_one_misses_is_not_the_one_missing(tmp_path: Path) -> None:
    """Found by review: `npm test` printing `jest: not found` is jest missing, not npm
    (corpus-f: `npm test` → `sh: 1: vitest: not found`, node_modules never installed)."""
    session = _claude(tmp_path, [
        ("user", "Run the tests."),
        ("call", "toolu_1", "Bash", {"command": "npm test"}),
        ("result", "toolu_1", "> jest\nsh: 1: jest: not found", True),
        ("assistant", "The npm test script calls jest, which is not installed; I'll use npx."),
    ])  # fmt: skip
    (blocked,) = [m for m in _found(session) if m.kind == "blocked"]  # the agent named jest
    assert (blocked.operation, blocked.error) == ("jest", "jest: not installed here")


def test_a_command_with_an_empty_program_is_no_operation(tmp_path: Path) -> None:
    session = _claude(tmp_path, [
        ("user", "Check the version."),
        ("call", "toolu_1", "Bash", {"command": '"" --version'}),
        ("result", "toolu_1", "bash: : command not found", True),
        ("call", "toolu_2", "Bash", {"command": '"" --version'}),
        ("result", "toolu_2", "1.0", False),
    ])  # fmt: skip
    assert _found(session) == []


def test_a_rerun_that_gets_past_its_error_after_a_file_repair_is_an_error_fix(
    tmp_path: Path,
) -> None:
    """corpus-d (MoonMind): a script checked out with CRLF fails under WSL bash; the agent
    rewrites its line endings with a here-document and the rerun fails further on. The
    session later passes for an unrelated reason, which must not hide what got past."""
    cwd = "/mnt/d/ai/MoonMind"
    script = ".specify/scripts/bash/check-prerequisites.sh --json"
    repair = (
        "python3 - <<'PY'\nfrom pathlib import Path\npath = Path('.specify/scripts/bash/"
        "check-prerequisites.sh')\npath.write_bytes(path.read_bytes().replace(b'\\r\\n', "
        "b'\\n'))\nPY"
    )
    session = _codex(tmp_path, [
        ("user", "Run the plan setup."),
        ("shell", "c1", script), ("output", "c1", "/usr/bin/env: 'bash\\r': No such file or directory", 127),
        ("shell", "c2", repair), ("output", "c2", "", 0),
        ("shell", "c3", script), ("output", "c3", "common.sh: line 3: $'\\r': command not found", 127),
        ("shell", "c4", "git checkout -b 001-plan"), ("output", "c4", "Switched", 0),
        ("shell", "c5", script), ("output", "c5", '{"FEATURE_DIR": "specs/001-plan"}', 0),
    ], cwd)  # fmt: skip
    (moment,) = [m for m in _found(session) if m.kind == "error-fix"]
    assert moment.lines == [3, 5, 7] and moment.changes == ["after `python3 - <<'PY' …`"]


def test_the_agents_own_patch_tool_failing_then_applying_is_no_moment(tmp_path: Path) -> None:
    cwd = "/home/dev/node1"
    patch = "apply_patch <<'PATCH'\n*** Begin Patch\n*** Update File: run.sh\n@@\n-a\n+b\nPATCH"
    session = _codex(tmp_path, [
        ("user", "Make run.sh quieter."),
        ("shell", "c1", patch), ("output", "c1", "error: Failed to find expected lines in run.sh", 1),
        ("shell", "c2", "chmod +x run.sh"), ("output", "c2", "", 0),
        ("shell", "c3", patch), ("output", "c3", "Success. Updated the following files", 0),
    ], cwd)  # fmt: skip
    assert _found(session) == []


def test_a_test_failing_on_a_missing_module_drafts_no_other_command(tmp_path: Path) -> None:
    """corpus-e (kmitch92): jest's "Cannot find module" is the test failing, not `npm test`
    missing; the `npm list` the agent ran next is a moment (which packages are installed was
    the lesson) but no draft "run `npm list`, not `npm test`"."""
    failure = (
        "FAIL handlers/csv-chunker.test.ts\n  ● Test suite failed to run\n\n    Cannot "
        "find module './csv-chunker.types' from 'handlers/csv-chunker.test.ts'"
    )
    session = _claude(tmp_path, [
        ("user", "Add a chunker test."),
        ("call", "toolu_1", "Bash", {"command": "npm test -- csv-chunker.test.ts"}),
        ("result", "toolu_1", failure, True),
        ("call", "toolu_2", "Bash", {"command": "npm list | grep csv"}),
        ("result", "toolu_2", "├── csv-parse@5.5.6", False),
    ])  # fmt: skip
    assert [m.kind for m in _found(session)] == ["error-fix"]
    result = extract_sessions([session], None)
    assert result.drafts == [] and "missing" in str(result.undrafted[0]["why"])


def test_a_guarded_rerun_is_no_pass(tmp_path: Path) -> None:
    """Found by a second review: `… || true` passes whatever happens."""
    missing = 'Usage Error: Couldn\'t find a script named "test:web".'
    session = _claude(tmp_path, [
        ("user", "Run the web tests."),
        ("call", "toolu_1", "Bash", {"command": "yarn test:web"}),
        ("result", "toolu_1", missing, True),
        ("call", "toolu_2", "Bash", {"command": "yarn test --filter web || true"}),
        ("result", "toolu_2", "error Command failed with exit code 1.", False),
    ])  # fmt: skip
    assert [m for m in _found(session) if m.kind == "error-fix"] == []


def test_dash_saying_a_program_is_missing_is_read_like_bash(tmp_path: Path) -> None:
    session = _claude(tmp_path, [
        ("user", "Run the tests."),
        ("call", "toolu_1", "Bash", {"command": "pytest -q"}),
        ("result", "toolu_1", "sh: 1: pytest: not found", True),
        ("call", "toolu_2", "Bash", {"command": "python3 -m pytest -q"}),
        ("result", "toolu_2", "12 passed", False),
    ])  # fmt: skip
    (draft,) = extract_sessions([session], None).drafts
    assert draft.summary == "`pytest` is not found here: run `python3 -m pytest`"


def test_a_program_missing_is_cleared_when_what_reached_for_it_runs_later(
    tmp_path: Path,
) -> None:
    """Found by a second review: `npm test` missing vitest twice, then `npm ci`, then `npm
    test` passing: vitest ran. And output that only mentions a missing program while the
    command worked (a shell profile's `compdef: command not found`) is no miss."""
    vitest = "Exit code 127\n> vitest run\nsh: 1: vitest: not found"
    session = _claude(tmp_path, [
        ("user", "Run the tests."),
        ("call", "toolu_1", "Bash", {"command": "npm run test:watch"}),
        ("result", "toolu_1", vitest, True),
        ("call", "toolu_2", "Bash", {"command": "npm run test:unit"}),
        ("result", "toolu_2", vitest, True),
        ("call", "toolu_3", "Bash", {"command": "npm ci"}),
        ("result", "toolu_3", "added 312 packages", False),
        ("call", "toolu_4", "Bash", {"command": "npm test"}),
        ("result", "toolu_4", "Tests  12 passed", False),
    ])  # fmt: skip
    assert [m for m in _found(session) if m.kind == "blocked"] == []
    noise = ".profile: line 6: compdef: command not found\n"
    profile = _claude(tmp_path, [
        ("user", "Look around."),
        ("call", "toolu_1", "Bash", {"command": "cat README.md"}),
        ("result", "toolu_1", noise + "# Shop", False),
        ("call", "toolu_2", "Bash", {"command": "npm run lint"}),
        ("result", "toolu_2", noise + "0 problems", False),
    ])  # fmt: skip
    assert [m for m in _found(profile) if m.kind == "blocked"] == []


def test_a_person_step_needs_the_failure_to_ask_for_a_person_and_the_same_command(
    tmp_path: Path,
) -> None:
    """Found by a second review: npm's "No license field" and a URL with /login ask nothing
    of the person; and another command run after they spoke is not the same rerun."""
    warned = _claude(tmp_path, [
        ("user", "Run the tests."),
        ("call", "toolu_1", "Bash", {"command": "npm test"}),
        ("result", "toolu_1", "npm WARN shop@1.0.0 No license field.\nnpm ERR! ETIMEDOUT", True),
        ("user", "ok"),
        ("call", "toolu_2", "Bash", {"command": "npm test"}),
        ("result", "toolu_2", "Tests: 12 passed", False),
    ])  # fmt: skip
    assert [m for m in _found(warned) if "person" in " ".join(m.changes)] == []
    other = _claude(tmp_path, [
        ("user", "Show the pull request."),
        ("call", "toolu_1", "Bash", {"command": "gh pr view 7"}),
        ("result", "toolu_1", "To get started with GitHub CLI, please run:  gh auth login", True),
        ("user", "done"),
        ("call", "toolu_2", "Bash", {"command": "gh pr view 8"}),
        ("result", "toolu_2", "title: Fix the cart", False),
    ])  # fmt: skip
    assert [m for m in _found(other) if "person" in " ".join(m.changes)] == []


@pytest.mark.parametrize(
    ("first_output", "repair", "is_moment"),
    [
        ("bash: ./run.sh: Permission denied", "chmod +x run.sh", True),
        ("FAILED tests/test_run.py::test_x - AssertionError", "chmod +x run.sh", False),
        ("run.sh: line 2: $'\\r': command not found", "sed -i 's/\\r$//' run.sh", True),
        ("run.sh: line 2: syntax error", "sed -i 's/fi fi/fi/' run.sh", False),
    ],
)
def test_a_repair_is_a_mode_bit_a_folder_or_line_endings_and_never_after_a_test_failed(
    tmp_path: Path, first_output: str, repair: str, *, is_moment: bool
) -> None:
    """Found by a second review: each condition of a repair, pinned."""
    session = _claude(tmp_path, [
        ("user", "Run the script."),
        ("call", "toolu_1", "Bash", {"command": "./run.sh"}),
        ("result", "toolu_1", first_output, True),
        ("call", "toolu_2", "Bash", {"command": repair}),
        ("result", "toolu_2", "", False),
        ("call", "toolu_3", "Bash", {"command": "./run.sh"}),
        ("result", "toolu_3", "done", False),
    ])  # fmt: skip
    found = [m for m in _found(session) if m.kind == "error-fix"]
    assert bool(found) is is_moment
