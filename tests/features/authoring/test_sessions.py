"""Real session files read faithfully, and moments found without any phrase list.

Measured on main before this: a correction needed an English acknowledgement in the next
reply, refused tool calls and queued messages were never read, injected text counted as the
user, one bad line turned a whole `.jsonl` into "0 drafts", `cd X && …` made every command
"the same", and `.github/…` lost its dot. The fixtures follow the records Claude Code and
Codex CLI write today (shapes as in real public session files).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from orbit_learnings.curation.capture import commands, moments, shell
from orbit_learnings.curation.capture.drafting.scope import globs_for
from orbit_learnings.curation.capture.drafting.wording import finding_rule
from orbit_learnings.curation.capture.extract import extract_sessions
from orbit_learnings.curation.capture.readers import read_session
from orbit_learnings.curation.capture.sessions import INJECTED, USER
from tests.testing import REPO, CliRunner

SESSIONS = REPO / "tests/fixtures/sessions"
CLAUDE = str(SESSIONS / "claude-code.jsonl")
CODEX = str(SESSIONS / "codex-rollout.jsonl")


def test_claude_code_records_are_read_and_bad_lines_counted() -> None:
    session = read_session(CLAUDE, max_bytes=1 << 20)
    assert (session.agent, session.cwd, session.skipped) == ("claude-code", "/home/dev/shop", 1)
    said = [t.text for t in session.turns if t.kind == USER]
    assert said[0] == "Add a currency column to orders and wire it into the invoice total."
    assert said[1].startswith("never add a NOT NULL column")  # the refusal's reason
    assert said[2].startswith("und bitte immer Beträge in Cent")  # typed while it worked
    injected = [t.text for t in session.turns if t.kind == INJECTED]
    assert len(injected) == 5  # /clear, the caveat, compaction, a reminder, stop-hook feedback
    assert not any("Stop hook" in s or "continued from" in s for s in said)


def test_claude_code_moments_quote_the_person_in_any_language() -> None:
    found = extract_sessions([CLAUDE], None).drafts
    assert [(d.detector, d.source["lines"]) for d in found] == [
        ("rejection", [7]),
        ("queued", [14]),
        ("interruption", [17]),
    ]
    rejection = found[0]
    assert rejection.summary.startswith("Never add a NOT NULL column in one step here")
    assert rejection.paths == ["db/migrations/0042_currency.sql"]
    assert "refused the agent's action" in rejection.body


def test_a_changed_command_that_then_passes_is_an_error_fix(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(moments, "PER_SESSION", 10)
    fixes = [m for m in moments.find_moments(read_session(CLAUDE, max_bytes=1 << 20))
             if m.kind == "error-fix"]  # fmt: skip
    assert len(fixes) == 1  # `git status` failing is an answer, not an error
    assert fixes[0].operation == "pytest" and "DATABASE_URL=" in fixes[0].fixed
    assert "Connection refused" in fixes[0].error


def _session(tmp_path: Path, rows: list[tuple[str, object]]) -> str:
    """A Claude Code session file of (role, content) messages."""
    lines = [
        json.dumps({"type": role, "cwd": "/w", "message": {"role": role, "content": content}})
        for role, content in rows
    ]
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return str(path)


@pytest.mark.parametrize(
    "finding",
    [
        "I need to correct my earlier advice. Setting `tracking: false` disables the DataDog "
        "provider too.",
        "是的，这正是原因。分支基于 master 创建，所以 PR 多了 43 个文件。",
    ],
)
def test_a_cause_the_agent_finds_after_a_question_is_a_moment(tmp_path: Path, finding: str) -> None:
    asked = _session(
        tmp_path,
        [("user", "Set up the tracking client."), ("assistant", "Done."),
         ("user", "Will the other provider still work if I turn tracking off?"),
         ("assistant", finding)],
    )  # fmt: skip
    found = moments.find_moments(read_session(asked, max_bytes=1 << 20))
    assert [(m.kind, m.lines) for m in found] == [("finding", [4])]
    assert found[0].said.startswith(finding.split("。")[0].split(". ")[0])
    result = extract_sessions([asked], None)  # no file to scope it to: a moment, no draft
    assert not result.drafts and [m["moment"] for m in result.undrafted] == ["finding"]
    assert (finding_rule(finding) or "").startswith(
        ("Setting `tracking: false`", "分支基于 master")
    )


def test_an_agent_explaining_unprompted_is_no_moment(tmp_path: Path) -> None:
    told = _session(
        tmp_path,
        [("user", "Add a retry to the webhook handler."), ("assistant", "Done."),
         ("user", "Now add the same to the mailer."),
         ("assistant", "That's why I wrapped it in a helper; the root cause is shared.")],
    )  # fmt: skip
    assert [m.kind for m in moments.find_moments(read_session(told, max_bytes=1 << 20))] == []


def test_a_lesson_met_again_in_a_later_session_grows_its_draft_and_leads_the_queue(
    workspace: Path, orbit: CliRunner, tmp_path: Path
) -> None:
    first = tmp_path / "one"
    second = tmp_path / "two"
    other = tmp_path / "three"
    for folder in (first, second, other):
        folder.mkdir()
    said = {
        first: "Never use npm in this repository; always use pnpm instead.",
        second: "Always use pnpm instead of npm in this repository, never npm.",
        other: "Never commit the generated client; always regenerate it in CI instead.",
    }
    paths = {
        f: _session(f, [("user", "Add the date library."), ("assistant", "Done."),
                        ("user", text)])
        for f, text in said.items()
    }  # fmt: skip
    made = orbit("learning", "extract", paths[first], paths[other], "--json").json()
    assert len(made["drafts"]) == 2
    npm = next(d for d in made["drafts"] if "npm" in d["summary"])
    again = orbit("learning", "extract", paths[second], "--json").json()
    assert again["drafts"] == [] and again["recurred"] == [npm["id"]]
    grown = orbit("learning", "drafts", "list", "--json").json()["drafts"]
    assert grown[0]["id"] == npm["id"]  # met in two sessions: reviewed first
    assert grown[0]["confidence"] > npm["confidence"]
    assert grown[0]["source"]["also"][0]["file"] == paths[second]


def test_codex_rollouts_are_read_with_patches_and_interruptions() -> None:
    result = extract_sessions([CODEX], None)
    assert result.files[0]["agent"] == "codex" and result.files[0]["skipped"] == 0
    kinds = {d.detector: d for d in result.drafts}
    assert set(kinds) == {"error-fix", "interruption"}
    assert kinds["error-fix"].paths == ["package.json"]  # from `*** Update File: package.json`
    assert kinds["error-fix"].summary == (
        "`npm test` needs `--setupFiles dotenv/config` in `package.json`"  # the patch's lines
    )
    assert kinds["interruption"].summary.startswith("Don't touch `package.json` scripts")


def test_the_environment_context_codex_injects_is_not_the_user() -> None:
    session = read_session(CODEX, max_bytes=1 << 20)
    said = [t.text for t in session.turns if t.kind == USER]
    assert said[0] == "fix the failing webhook test" and not any("<cwd>" in s for s in said)


@pytest.mark.parametrize(
    ("command", "operation"),
    [
        ("cd web && FOO=1 uv run pytest -x tests 2>&1 | tail -20", "pytest"),
        ("python3 -m pytest tests/x.py -q", "pytest"),
        ("npm run build", "npm run build"),
        ("git push --force origin main", "git push"),
        ('bash -lc "cd api && cargo test"', "cargo test"),
        ("timeout 60 make test", "make test"),
        ("npx jest --watch=false", "jest"),
        ("cd .. && ls", None),
        ("git status", None),
        ("sed -n '1,20p' src/app.py", None),
    ],
)
def test_commands_name_their_operation(command: str, operation: str | None) -> None:
    assert commands.operation(command) == operation


def test_paths_become_repo_relative_from_any_os_with_dotfiles_intact() -> None:
    assert globs_for(["C:\\Users\\dev\\shop\\tests\\test_x.py"], "C:\\Users\\dev\\shop") == [
        "tests/test_x.py"
    ]
    assert globs_for(["/home/a/r/.github/workflows/ci.yml", "/tmp/scratch.py"], "/home/a/r") == [
        ".github/workflows/ci.yml"
    ]
    assert globs_for(["./.env", "../elsewhere.py"], None) == [".env"]


def test_a_file_that_is_no_session_is_an_error_never_zero_drafts(
    workspace: Path, orbit: CliRunner
) -> None:
    broken = workspace / "broken.jsonl"
    broken.write_text("{not json\n{also not json\n")
    refused = orbit("learning", "extract", str(broken))
    assert refused.code == 1 and "none of its 2 lines" in refused.err
    assert orbit("learning", "extract", str(workspace / "missing.jsonl")).code == 1


def test_extract_json_reports_lines_read_and_skipped(workspace: Path, orbit: CliRunner) -> None:
    report = orbit("learning", "extract", CLAUDE, CODEX, "--json").json()["files"]
    assert [(f["agent"], f["lines"], f["skipped"]) for f in report] == [
        ("claude-code", 28, 1),
        ("codex", 15, 0),
    ]


FAKE_MODEL = """\
import json, sys
prompt = sys.stdin.read()
assert "JSON array" in prompt
moments = json.loads(prompt.rsplit("The moments, as JSON:", 1)[1])
open(sys.argv[1], "w").write(json.dumps(moments))
print("Here you go:\\n```json")
print(json.dumps([{"moment": 0, "summary": "Add NOT NULL columns in three steps",
                   "body": "Nullable, backfill, then NOT NULL.",
                   "paths": ["db/migrations/**"], "tags": ["database"]}]))
print("```")
"""


def test_with_a_model_command_the_moments_go_to_it_and_its_drafts_come_back(
    workspace: Path, orbit: CliRunner, tmp_path: Path
) -> None:
    script = tmp_path / "fake_model.py"
    script.write_text(FAKE_MODEL)
    seen = tmp_path / "seen.json"
    command = f"{sys.executable} {script} {seen}"
    result = orbit("learning", "extract", CLAUDE, "--with", command, "--json").json()
    (draft,) = result["drafts"]
    assert (draft["detector"], draft["summary"]) == ("model", "Add NOT NULL columns in three steps")
    assert draft["source"]["lines"] == [7] and draft["paths"] == ["db/migrations/**"]
    sent = json.loads(seen.read_text())
    found = moments.find_moments(read_session(CLAUDE, max_bytes=1 << 20))
    assert [m["kind"] for m in sent] == [m.kind for m in found]  # every moment, drafted or not
    assert {"rejection", "queued", "interruption"} <= {m["kind"] for m in sent}
    broken = orbit("learning", "extract", CODEX, "--with", f"{sys.executable} -c 'print(1)'")
    assert broken.code == 1 and "JSON array" in broken.err
    missing = orbit("learning", "extract", CODEX, "--with", "no-such-model-cli -p")
    assert missing.code == 1 and "not installed" in missing.err


REVIEWS = REPO / "tests/fixtures/reviews"


def test_review_comments_that_state_a_rule_become_anchored_drafts(
    workspace: Path, orbit: CliRunner
) -> None:
    github = str(REVIEWS / "github-pull-comments.json")
    gitlab = str(REVIEWS / "gitlab-mr-discussions.json")
    drafts = orbit("learning", "extract", "--review", github, "--review", gitlab, "--json").json()[
        "drafts"
    ]
    by_path = {d["paths"][0]: d for d in drafts}
    assert set(by_path) == {  # "Great stuff!", the "+1" reply, "nit", "typo", a question: dropped
        "services/billing/invoice.py",
        "db/migrations/0042_add_currency.sql",
        ".github/workflows/ci.yml",
        "lib/payments/client.rb",
    }
    money = by_path["services/billing/invoice.py"]
    assert money["summary"].startswith("We never use floats for money")
    assert money["source"]["anchor"] == "services/billing/invoice.py:40-42"
    assert "```suggestion" not in by_path["db/migrations/0042_add_currency.sql"]["body"]
    invoice = workspace / "services/billing/invoice.py"
    invoice.parent.mkdir(parents=True)
    invoice.write_text("".join(f"line {n}\n" for n in range(1, 60)))
    accepted = orbit("learning", "drafts", "accept", money["id"], "--json").json()
    record = orbit("learning", "show", accepted["id"], "--json").json()
    assert record["status"] == "proposed"
    assert [a["path"] for a in record["anchors"]] == ["services/billing/invoice.py"]


def test_a_review_file_that_is_not_an_api_answer_is_one_clear_error(
    workspace: Path, orbit: CliRunner
) -> None:
    bad = workspace / "review.json"
    bad.write_text('{"message": "Not Found"}')
    refused = orbit("learning", "extract", "--review", str(bad))
    assert refused.code == 1 and "JSON array" in refused.err
    assert orbit("learning", "extract").code == 2


def test_the_teams_prompt_is_used_and_a_linked_one_is_refused(
    workspace: Path, orbit: CliRunner, tmp_path: Path
) -> None:
    script = tmp_path / "echo_prompt.py"
    script.write_text(
        "import json, sys\n"
        "prompt = sys.stdin.read()\n"
        "assert prompt.startswith('OUR TEAM PROMPT'), prompt[:40]\n"
        "print(json.dumps([{'moment': 0, 'summary': 'Team prompt used'}]))\n"
    )
    own = workspace / ".orbit/extract-prompt.md"
    own.write_text("OUR TEAM PROMPT\n")
    command = f"{sys.executable} {script}"
    made = orbit("learning", "extract", CLAUDE, "--with", command, "--json").json()["drafts"]
    assert [d["summary"] for d in made] == ["Team prompt used"]
    own.unlink()
    secret = tmp_path / "secret.md"
    secret.write_text("OUR TEAM PROMPT but outside\n")
    own.symlink_to(secret)
    refused = orbit("learning", "extract", CODEX, "--with", command)
    assert refused.code == 1 and "extract-prompt.md" in refused.err


@pytest.mark.parametrize(
    ("typed", "expected"),
    [("add a CSV export to the reports page", "add a CSV export to the reports page"),
     ("$ARGUMENTS", "")],
)  # fmt: skip
def test_a_prompt_file_a_command_expands_is_the_harness_but_what_was_typed(
    tmp_path: Path, typed: str, expected: str
) -> None:
    """Any prompt file with front matter (Codex prompts, Claude Code commands, spec-kit's
    older `/specify`): the person's words are its argument, none when it stayed `$ARGUMENTS`."""
    expanded = ("---\ndescription: Create or update the feature specification.\n---\n\nThe user "
                "input to you can be provided directly by the agent or as a command argument - you "
                f"**MUST** consider it before proceeding.\n\nUser input:\n\n{typed}\n\nGiven that "
                "feature description, do this:\n1. Run the script. All file paths must be absolute.")  # fmt: skip
    session = read_session(_session(tmp_path, [("user", expanded)]), max_bytes=1 << 20)
    assert [(t.kind, t.text) for t in session.turns] == [("user", expected)]


@pytest.mark.parametrize(
    "after",
    [[("user", "no, there is still an error")], [("user", "[Request interrupted by user]")]],
)
def test_a_cause_the_person_then_says_was_not_it_is_no_moment(
    tmp_path: Path, after: list[tuple[str, object]]
) -> None:
    """An unresolved session's guesses are no gotcha: the person says it still fails, or
    stops the agent right after it names the cause."""
    asked = _session(
        tmp_path,
        [("user", "Why does the import fail?"),
         ("assistant", "The issue is that `ConnectHandler` is imported on line 9 but not used."),
         *after],
    )  # fmt: skip
    assert moments.find_moments(read_session(asked, max_bytes=1 << 20)) == []


@pytest.mark.parametrize(
    "why", ["why do you ask permission for this?", "Warum fragst du jedes Mal?"]
)
def test_the_agents_answer_to_why_is_a_finding_however_worded(tmp_path: Path, why: str) -> None:
    asked = _session(
        tmp_path,
        [("user", "Review your permissions."), ("assistant", "Here they are."),
         ("user", why),
         ("assistant", "The patterns `Bash(cat *)` match commands that start with `cat`; a pipe "
                       "into `python3` is a different command.")],
    )  # fmt: skip
    found = moments.find_moments(read_session(asked, max_bytes=1 << 20))
    assert [(m.kind, m.lines) for m in found] == [("finding", [4])]
    assert found[0].said.startswith("The patterns `Bash(cat *)` match")


@pytest.mark.parametrize(
    ("command", "operation"),
    [("kubectl exec mypod -n prod -- python manage.py migrate", "python manage.py migrate"),
     ("docker run --rm --network host myimg pytest -q", "pytest"),
     ("docker compose -f dc.yml exec web pytest", "pytest")],
)  # fmt: skip
def test_the_command_run_in_a_container_is_the_operation(command: str, operation: str) -> None:
    assert commands.operation(command) == operation


def test_a_pasted_document_with_front_matter_stays_the_persons_words(tmp_path: Path) -> None:
    pasted = (
        "---\ntitle: Release notes\ndate: 2026-11-20\n---\n\nFix the typos, never change the date."
    )
    session = read_session(_session(tmp_path, [("user", pasted)]), max_bytes=1 << 20)
    assert session.turns[0].text.endswith("never change the date.")


def test_a_model_draft_naming_no_moment_can_repeat_a_waiting_draft(tmp_path: Path) -> None:
    """Found trying `--with` on a real session: the model's draft of a lesson already waiting
    as a draft, with no `moment` number, crashed `extract` (KeyError: 'file')."""
    from orbit_learnings.curation.capture.drafting import Draft
    from orbit_learnings.curation.capture.extract import recurs

    kept = Draft("interruption", "Do not add your signature", "", [], [], 0.8,
                 {"file": "s.jsonl", "lines": [7], "moment": "interruption"})  # fmt: skip
    again = Draft("model", "Never add an agent signature", "", ["**"], [], 0.8, {"moment": "model"})
    recurs(kept, again)
    assert kept.source.get("also") == [] and kept.confidence == 0.9


def test_a_model_draft_naming_no_moment_can_be_accepted(
    workspace: Path, orbit: CliRunner, tmp_path: Path
) -> None:
    """The model may leave out `moment`; accepting its draft crashed on the missing file."""
    script = tmp_path / "model.py"
    script.write_text(
        "import json, sys\nsys.stdin.read()\n"
        "print(json.dumps([{'summary': 'Never add an agent signature to commits', 'body': 'x',"
        " 'paths': [], 'tags': ['git']}]))\n"
    )
    found = orbit("learning", "extract", CLAUDE, "--with", f"{sys.executable} {script}", "--json")
    (draft,) = found.json()["drafts"]
    accepted = orbit("learning", "drafts", "accept", draft["id"])
    assert accepted.code == 0, accepted.err
    assert "accepted as L-" in accepted.out + accepted.err


def test_a_record_whose_type_is_not_text_is_skipped_and_counted(tmp_path: Path) -> None:
    """Found by fuzzing the hooks' reader: `{"type": [1]}` or a payload typed by a dict made
    the readers raise (and `extract` fail); such a line is damaged, skipped and counted."""
    rows = [
        {"type": "user", "cwd": "/r", "message": {"role": "user", "content": "Fix it."}},
        {"type": [1], "content": "x"},
        {"type": "response_item", "payload": {"type": {"a": 1}}},
        {"type": "assistant", "message": {"role": "assistant", "content": "Done."}},
    ]
    path = tmp_path / "damaged.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    session = read_session(str(path), max_bytes=1 << 20)
    assert (session.agent, session.lines, session.skipped) == ("claude-code", 4, 2)
    rollout = tmp_path / "rollout.jsonl"
    item = {"type": "message", "role": "user", "content": 5}  # content that is no list
    rollout.write_text(json.dumps({"type": "response_item", "payload": item}) + "\n")
    assert read_session(str(rollout), max_bytes=1 << 20).agent == "codex"


def test_a_here_documents_body_is_data_not_commands() -> None:
    """Found by review: every finder tokenised a heredoc's body (a file written with
    `cat > f <<'EOF'`): 700 such writes took 6 s in a hook, and `&&` inside a body made
    commands nobody ran. The body is left out; the line after its terminator is a command."""
    body = "\n".join(f"x{i} = 'a' && rm -rf b{i}" for i in range(3000))
    command = f"cat > mod.py <<'EOF'\n{body}\nEOF\nnpm test"
    assert shell.tokens(command) == ["cat", ">", "mod.py", "<<", "EOF", ";", "npm", "test"]
    assert commands.segments(command) == [["cat"], ["npm", "test"]]
    assert commands.operation(command) == "npm test"
    assert len(shell.without_data("x" * 10_000)) == shell.MAX_COMMAND_CHARS


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("make -j$(nproc)", [["make", "-j$(nproc)"]]),
        ("cd build && make -j$(nproc --ignore 2)", [["cd", "build"], ["make", "-j$(nproc --ignore 2)"]]),
        ("x=$(git log | head -1); npm test", [["x=$(git log | head -1)"], ["npm", "test"]]),
        ('echo "$(date "+%Y %m")" && npm test', [["echo", '$(date "+%Y %m")'], ["npm", "test"]]),
        ('echo $(echo ")") && npm test', [["echo", '$(echo ")")'], ["npm", "test"]]),
        ("grep '$(foo bar)' file", [["grep", "$(foo bar)", "file"]]),  # single quotes: text
        ('git commit -m "$(cat <<EOF\nfix && more\nEOF\n)" && git push',
         [["git", "commit", "-m", "$(cat <<EOF\nfix && more\nEOF\n)"], ["git", "push"]]),
        # From a third review: Claude Code's own commit form, with an apostrophe in the body
        ("git commit -m \"$(cat <<'EOF'\nfix: don't crash\nEOF\n)\" && npm test",
         [["git", "commit", "-m", "$(cat <<'EOF'\nfix: don't crash\nEOF\n)"], ["npm", "test"]]),
        ('echo "$(echo it\\\'s)" && npm test', [["echo", "$(echo it\\'s)"], ["npm", "test"]]),
        ("make -j$((N+1)) test", [["make", "-j$((N+1))", "test"]]),
        ("x=$( (cd a; ls) ) && npm test", [["x=$( (cd a; ls) )"], ["npm", "test"]]),
    ],
)  # fmt: skip
def test_a_command_substitution_is_one_word_given_back_as_written(
    command: str, expected: list[list[str]]
) -> None:
    """Found on corpus-n: `make -j$(nproc)` named its operation "make (". A substitution is
    one word, given back as the agent wrote it (a second review: not rewritten as `${…}`)."""
    assert commands.segments(command) == expected


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ('grep foo <<< "bar"\nnpm test', [["grep", "foo"], ["npm", "test"]]),  # a here-string
        ('echo "use << EOF here"\nnpm test', [["echo", "use << EOF here"], ["npm", "test"]]),
        ("cat <<A <<B\nxa\nA\nyb && rm y\nB\nnpm test", [["cat"], ["npm", "test"]]),
        ("cat <<\\EOF\ny && z\nEOF\nnpm test", [["cat"], ["npm", "test"]]),
        ("cat <<EOF\n  EOF\nstill && body\nEOF\nnpm test", [["cat"], ["npm", "test"]]),
        ("cat <<-EOF\n\tbody && x\n\tEOF\nnpm test", [["cat"], ["npm", "test"]]),
        ("cd web\nnpm test", [["cd", "web"], ["npm", "test"]]),  # a line break ends a command
        ("npm run \\\n  build", [["npm", "run", "build"]]),  # … unless it is continued
        ("python - <<'PY'\r\nimport os\r\nPY\r\nnpm test", [["python", "-"], ["npm", "test"]]),
        ("cd web  # it's the app\nnpm test", [["cd", "web"], ["npm", "test"]]),  # a comment
    ],
)  # fmt: skip
def test_a_here_document_or_a_line_break_ends_where_a_shell_ends_it(
    command: str, expected: list[list[str]]
) -> None:
    """From a second review: a here-string (`<<<`), `<<` in quotes, two here-documents on a
    line, `<<\\EOF`, an indented terminator without `-`, and lines as commands."""
    assert commands.segments(command) == expected


def test_a_rerun_with_a_substitution_says_it_as_the_agent_wrote_it() -> None:
    """The change a rule names shows the substitution as it ran, not a tokeniser's form."""
    from orbit_learnings.curation.capture.moments.operations import run_shape, what_changed
    from orbit_learnings.curation.capture.sessions import TOOL_USE, Turn

    def call(command: str) -> Turn:
        return Turn(1, TOOL_USE, tool="Bash", tool_input={"command": command})

    changed = what_changed(run_shape(call("pytest -q")),
                           run_shape(call("DATABASE_URL=$(cat .env.test-url) pytest -q")))  # fmt: skip
    assert changed == ["with `DATABASE_URL=$(cat .env.test-url)`"]


def test_a_saved_hook_context_is_the_harness_not_an_unknown_line(tmp_path: Path) -> None:
    """Found on corpus-n: Claude Code saves a hook's added context as `saved_hook_context`
    records; they were counted as 23 lines skipped."""
    rows = [
        {"type": "user", "cwd": "/r", "message": {"role": "user", "content": "Fix it."}},
        {"type": "saved_hook_context", "uuid": "u1", "content": ["You are in learning mode."]},
    ]
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    session = read_session(str(path), max_bytes=1 << 20)
    assert session.skipped == 0 and [t.text for t in session.turns] == ["Fix it."]


def test_the_command_a_rule_shows_keeps_a_substitution_as_written() -> None:
    """From a third review: `make '-j$(nproc)' build` was shown, which runs differently."""
    assert commands.first_segment("cd web && make -j$(nproc) build") == "make -j$(nproc) build"
