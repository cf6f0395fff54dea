"""Deterministic drafts state the rule, with the moment as evidence.

Measured before this: blind reviewers kept 4 of 30 drafts. The summary was the person's first
sentence — as often a question, an acknowledgement ("Yes let's try option 1"), a bug report
or a pasted terminal line as a rule; an agent's finding was summarised by its vaguest sentence
("You need to use a later hook"); an error-fix body quoted a whole here-document twice. The
sessions below are shaped as Claude Code writes them, with words taken from real public
sessions (tests/eval/capture/tuning).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from orbit_learnings.curation.capture.drafting import Draft, draft_for, reruns
from orbit_learnings.curation.capture.drafting.scope import globs_for
from orbit_learnings.curation.capture.extract import extract_sessions
from orbit_learnings.curation.capture.moments import Moment
from tests.features.authoring import claude_records as claude
from tests.features.authoring.claude_records import CWD, write_session


def _drafts(tmp_path: Path, *records: dict[str, object]) -> list[Draft]:
    return extract_sessions([str(write_session(tmp_path, *records))], None).drafts


def _said(text: str) -> dict[str, object]:
    return claude.record("user", text)


def test_a_refusal_that_names_the_tool_to_use_says_which_one_not(tmp_path: Path) -> None:
    (draft,) = _drafts(
        tmp_path,
        _said("Add left-pad to the web app."),
        claude.call("t1", "Bash", command="cd web && npm install left-pad"),
        claude.refused("t1", "no, use pnpm"),
    )
    assert draft.summary == "Use `pnpm`, not `npm`"  # was "Use pnpm"
    assert "The agent was about to run: `cd web && npm install left-pad`" in draft.body


def test_a_refusal_in_chinese_without_spaces_is_drafted_in_chinese(tmp_path: Path) -> None:
    said = "采用如下方案,我指定创建的skills增加custom前缀,自动创建的不管"
    (draft,) = _drafts(
        tmp_path,
        _said("把skills软链到我的文件夹"),
        claude.call("t1", "Bash", command="mkdir -p ~/skills/auto-generated"),
        claude.refused("t1", said),
    )  # one "word" to str.split: it used to be dropped as too short
    assert (
        draft.summary == "我指定创建的skills增加custom前缀,自动创建的不管"
    )  # "adopt this plan," dropped


def test_an_interruption_that_reports_what_the_screen_shows_is_no_draft(tmp_path: Path) -> None:
    spec = f"{CWD}/spec/support/capybara.rb"
    found = _drafts(
        tmp_path,
        _said("Print the server url in the system spec."),
        claude.call("t1", "Edit", file_path=spec, old_string="around", new_string="before"),
        claude.record("user", [{"type": "text", "text": "[Request interrupted by user for tool use]"}]),
        _said('Added pp on line 76 and it shows "BMH server_url: http://127.0.0.1:".  It seems '
              "Capybara.server_port is blank."),
    )  # fmt: skip
    assert found == []  # was 'Added pp on line 76 and it shows "BMH server_url: …'


def test_a_redone_edit_shows_the_lines_the_agent_changed(tmp_path: Path) -> None:
    workflow = f"{CWD}/.github/workflows/deploy.yml"
    literal = "VITE_YNAB_REDIRECT_URI: https://bradymholt.github.io/finder/"
    variable = "VITE_YNAB_REDIRECT_URI: ${{ vars.VITE_YNAB_REDIRECT_URI }}"
    (draft,) = _drafts(
        tmp_path,
        _said("Deploy the app to GitHub Pages with the OAuth settings."),
        claude.call("t1", "Edit", file_path=workflow, old_string="run: npm run build",
              new_string=f"run: npm run build\n  env:\n    {literal}"),
        claude.result("t1", "The file has been updated."),
        _said("Let's reference a var for VITE_YNAB_REDIRECT_URI, never the literal URL"),
        claude.call("t2", "Edit", file_path=workflow, old_string=literal, new_string=variable),
        claude.result("t2", "The file has been updated."),
    )  # fmt: skip
    assert (draft.detector, draft.summary) == (
        "redo",
        "Reference a var for `VITE_YNAB_REDIRECT_URI`, never the literal URL",
    )
    assert f"- {literal}\n+ {variable}" in draft.body
    assert draft.paths == [".github/workflows/deploy.yml"] and draft.tags == ["ci"]  # was "git"


def test_a_command_not_found_then_another_program_says_which_to_run(tmp_path: Path) -> None:
    script = "python - <<'PY'\nimport re\nfrom pathlib import Path\nprint(Path('.').resolve())\nPY"
    (draft,) = _drafts(
        tmp_path,
        _said("Check the checklists."),
        claude.call("t1", "Bash", command=script),
        claude.result("t1", "bash: python: command not found", error=True),
        claude.call("t2", "Bash", command=script.replace("python -", "python3 -")),
        claude.result("t2", CWD),
    )
    assert draft.summary == "`python` is not found here: run `python3`"
    # The rule said in words first (blind reviewers of three rounds asked for it over a log):
    assert draft.body.startswith(
        "There is no `python` on the PATH where the agent runs: call `python3` instead.\n\nFailed:"
    )
    assert "import re" not in draft.body  # the here-document's body is data, not the lesson
    assert "python3 - <<'PY' …" in draft.body


def _error_fix(**given: object) -> Moment:
    moment = Moment("error-fix", [10, 14], 0.7)
    for name, value in given.items():
        setattr(moment, name, value)
    return moment


def test_a_rerun_with_a_variable_the_failure_names_says_the_operation_needs_it() -> None:
    moment = _error_fix(operation="pytest", failed="pytest -q", fixed="DATABASE_URL=sqlite:// pytest -q",
                        error="KeyError: 'DATABASE_URL'", changes=["with `DATABASE_URL=sqlite://`"])  # fmt: skip
    draft = draft_for(moment, path="s.jsonl", root=CWD)
    assert draft is not None and draft.summary == "`pytest` needs `DATABASE_URL=sqlite://`"
    assert "KeyError: 'DATABASE_URL'" in draft.body


def _finding(
    said: str, files: tuple[str, ...] = (f"{CWD}/spec/support/capybara.rb",)
) -> Draft | None:
    moment = Moment("finding", [31], 0.5, said=said, files=list(files))
    return draft_for(moment, path="s.jsonl", root=CWD)


def test_a_finding_is_summarised_by_the_cause_not_the_advice() -> None:
    draft = _finding(
        "The issue is that `Capybara.server_port` is `nil` in the `around(:each)` hook because "
        "the server hasn't started yet at that point in the test lifecycle. You need to use a "
        "later hook or access the server info differently."
    )
    assert draft is not None  # was "You need to use a later hook or access the server info …"
    assert draft.summary == "`Capybara.server_port` is `nil` in the `around(:each)` hook"
    assert draft.body.startswith("The agent found:")


@pytest.mark.parametrize(
    "guess",
    [
        "The issue is that for a new user, the firstMonth might actually be set to some default "
        "value. Let me check if there's a better way to test this.",
        "The issue is likely that after assigning money, the firstMonth gets updated.",
    ],
)
def test_a_guess_is_no_finding(guess: str) -> None:
    assert _finding(guess) is None


def _person(kind: str, said: str, files: list[str] | None = None) -> Draft | None:
    moment = Moment(kind, [20], 0.6, said=said, files=files or [])
    return draft_for(moment, path="s.jsonl", root=CWD)


@pytest.mark.parametrize(
    ("kind", "said"),
    [
        ("after-error", "Yes let's try option 1"),
        ("after-error", "remove config files"),
        ("interruption", "下面的命令做了什么? a111111@mac-mini shop % mrp\nremote: Create a pull "
                         "request for 'mr/prerelease/fix' by visiting:"),
        ("after-error", "## User Input\n\n```text\nT012, 13\n```\n\nYou **MUST** consider the "
                        "user input before proceeding (if not empty).\n\n## Outline\n\n1. Run"),
        ("redo", "In test on line 16 let load the budget, then do the asserts."),
        ("redo", "Failures:\n\n  1) New User Flow signing up\n     Failure/Error: visit root_path"),
        ("redo", "Deploy to GitHub pages. I opened the site and its a white page. Console shows "
                 '"Uncaught ReferenceError: require is not defined"'),
    ],
)  # fmt: skip
def test_words_that_hold_no_rule_give_no_draft(kind: str, said: str) -> None:
    assert _person(kind, said) is None


@pytest.mark.parametrize(
    ("said", "summary"),
    [
        ("以后所有的claude skill 保存在我本地个人目录,而非项目目录",
         "以后所有的claude skill 保存在我本地个人目录,而非项目目录"),
        ("this is a scratch check, stop running the whole suite; use `make test-billing` for "
         "billing", "Use `make test-billing` for billing"),
        ("und bitte immer Beträge in Cent als int speichern, nie float",
         "Immer Beträge in Cent als int speichern, nie float"),
        ("Do not use npm here, use pnpm.", "Do not use npm here, use pnpm"),  # no question
        ("lol never ask me to cat my keyring", "Never ask the user to cat the user's keyring"),
        ("Why do you use npm? Always use pnpm.", "Always use pnpm"),
        ("Меня зовут Лиза. Обращайся ко мне Лиза. Без моего подтверждения ты не удаляешь файлы, "
         "не отправляешь сообщения.",
         "Без моего подтверждения ты не удаляешь файлы, не отправляешь сообщения"),
        ("Debemos crear nuevos ejercicios para el examen eval/P1.tex como puede ver. Vamos a "
         "comenzar con un ejercicio para cada uno de los primeros 6 temas. Cada ejercicio de "
         "selección única debe emplear como template el archivo eval/00-Unidades/E001.tex.",
         "Cada ejercicio de selección única debe emplear como template el archivo "
         "`eval/00-Unidades/E001.tex`"),
    ],
)  # fmt: skip
def test_the_rule_is_the_sentence_that_reads_as_one_in_the_persons_language(
    said: str, summary: str
) -> None:
    draft = _person("follow-up", said)
    assert draft is not None and draft.summary == summary


def test_the_scope_is_repo_relative_and_one_glob_for_many_folders() -> None:
    files = [f"{CWD}/eval/0{n}-Tema/E00{n}.tex" for n in range(5)] + ["/tmp/scratch.tex"]
    assert globs_for(files, CWD) == ["eval/**"]
    draft = _person("follow-up", "Always use the E001 template for new exercises.", files)
    assert draft is not None and draft.paths == ["eval/**"] and draft.tags == ["latex"]
    assert "/tmp" not in draft.body and CWD not in draft.body


def test_words_after_a_failure_show_the_failing_command(tmp_path: Path) -> None:
    (draft,) = _drafts(
        tmp_path,
        _said("Run the webhook tests."),
        claude.call("t1", "Bash", command="npm test -- webhooks"),
        claude.result("t1", "Error: Cannot find module 'dotenv/config'", error=True),
        _said("never run npm here, always use pnpm"),
    )
    assert draft.summary == "Never run npm here, always use pnpm"
    assert "after `npm test -- webhooks` failed (Error: Cannot find module" in draft.body


@pytest.mark.parametrize(
    ("moment", "root", "summary", "evidence"),
    [
        (Moment("hang", [50, 51], 0.55, failed="claude doctor", operation="claude doctor",
                said="The command is waiting for input."),
         "/Users/liza/ai-lessons", "`claude doctor` hangs when the agent runs it",
         "The agent said:\n\n> The command is waiting for input."),
        (Moment("error-fix", [43, 46], 0.6, operation="yarn test:web",
                failed='yarn test:web --filter="loading"',
                fixed=f'cd {CWD}/ynab_web && yarn test --filter="loading"',
                error='\x1b[31mUsage Error\x1b[39m: Couldn\'t find a script named "test:web".',
                changes=["from `ynab_web`"]),
         CWD, "Run `yarn test` from `ynab_web`, not `yarn test:web`", "Usage Error: Couldn't"),
    ],
)  # fmt: skip
def test_moments_of_the_environment_and_the_agent_are_worded_as_what_happened(
    moment: Moment, root: str, summary: str, evidence: str
) -> None:
    draft = draft_for(moment, path="s.jsonl", root=root)
    assert draft is not None and draft.summary == summary  # never "The user said: <agent's words>"
    assert evidence in draft.body and "The user said" not in draft.body


def test_a_hang_names_the_command_with_its_subcommand() -> None:
    moment = Moment("hang", [42, 46], 0.55, failed="claude doctor 2>&1", operation="claude")
    draft = draft_for(moment, path="s.jsonl", root=CWD)
    assert draft is not None and draft.summary == "`claude doctor` hangs when the agent runs it"


def test_a_codex_patch_that_fixed_the_command_shows_its_lines() -> None:
    rollout = Path(__file__).parents[2] / "fixtures/sessions/codex-rollout.jsonl"
    fix = next(
        d for d in extract_sessions([str(rollout)], None).drafts if d.detector == "error-fix"
    )
    assert '- "test": "jest"\n+ "test": "jest --setupFiles dotenv/config"' in fix.body


def test_a_rerun_with_sudo_says_the_program_needs_it() -> None:
    moment = _error_fix(operation="mkdir", failed="mkdir -p /opt/app/logs", fixed="sudo mkdir -p /opt/app/logs",
                        error="mkdir: cannot create directory '/opt/app/logs': Permission denied",
                        changes=["with `sudo`"])  # fmt: skip
    assert reruns.rerun_rule(moment) == "`mkdir` needs `sudo` here"  # was "Use `sudo`, not `mkdir`"


def test_a_rerun_as_a_module_says_so() -> None:
    moment = _error_fix(operation="pytest", failed="pytest -q", fixed="python3 -m pytest -q",
                        error="Killed", changes=[])  # fmt: skip
    assert (
        reruns.rerun_rule(moment) == "Run `python3 -m pytest`, not `pytest`"
    )  # was "Use `python3`, not `pytest`"


def test_the_failure_that_names_the_missing_program_is_the_one_quoted(tmp_path: Path) -> None:
    """corpus-h (Fegor): a here-document failed on its own text first, then `python --version`
    said `python: command not found`; the rule is said from the second."""
    (draft,) = _drafts(
        tmp_path,
        _said("Fill in the constitution."),
        claude.call("t1", "Bash", command="python - <<'PY'\ntext = '''# Title'''\nPY"),
        claude.result("t1", "docs/hook-contracts.md: line 1: #: command not found", error=True),
        claude.call("t2", "Bash", command="python --version"),
        claude.result("t2", "/bin/bash: line 1: python: command not found", error=True),
        claude.call("t3", "Bash", command="python3 --version"),
        claude.result("t3", "Python 3.12.3"),
    )
    assert draft.summary == "`python` is not found here: run `python3`"


def test_a_venv_interpreter_for_a_module_missing_deep_in_a_traceback(tmp_path: Path) -> None:
    traceback = (
        'Traceback (most recent call last):\n  File "<stdin>", line 1, in <module>\n'
        "ModuleNotFoundError: No module named 'flask'"
    )
    script = "python - <<'PY'\nfrom app import app\nPY"
    (draft,) = _drafts(
        tmp_path,
        _said("Check the routes."),
        claude.call("t1", "Bash", command=script),
        claude.result("t1", traceback, error=True),
        claude.call("t2", "Bash", command=script.replace("python -", "./.venv/bin/python -")),
        claude.result("t2", "200 /12"),
    )
    assert draft.summary == "Use `./.venv/bin/python`, not `python`"


def test_a_probe_after_a_failure_is_never_the_fix(tmp_path: Path) -> None:
    """corpus-h (cosmos-makers): `omx explore` failed on a missing cargo; `which omx; omx
    --help` ran next. No "run `which`"."""
    drafts = _drafts(
        tmp_path,
        _said("Find how to run the loops."),
        claude.call("t1", "Bash", command='omx explore --prompt "find the loops"'),
        claude.result(
            "t1", "Error: [explore] cargo was not found. Install a Rust toolchain", error=True
        ),
        claude.call("t2", "Bash", command="which omx || true; omx --help | sed -n '1,220p'"),
        claude.result("t2", "/usr/local/bin/omx\nUsage: omx <command>"),
    )
    assert drafts == []

    probe = Moment("error-fix", [1, 2], 0.7, failed="omx explore", fixed="which omx; omx --help")
    assert reruns.changed_programs(probe) is None  # a probe names no program to use


def test_a_rerun_that_cannot_fail_or_only_times_out_another_script_is_no_rule(
    tmp_path: Path,
) -> None:
    """corpus-j (dealerflow): `npm run build` failed on a missing page module; `timeout 15
    npm run dev || true` ran next. Not "use `timeout`, not `npm`": `timeout` wraps npm, and
    `|| true` passes whatever happens."""
    drafts = _drafts(
        tmp_path,
        _said("Fix the build."),
        claude.call("t1", "Bash", command="npm run build 2>&1 | tail -50"),
        claude.result(
            "t1", "PageNotFoundError: Cannot find module for page: /app/forms", error=True
        ),
        claude.call("t2", "Bash", command="timeout 15 npm run dev 2>&1 || true"),
        claude.result("t2", "ready - started server on 0.0.0.0:3000"),
    )
    assert drafts == []

    wrapped = Moment("error-fix", [1, 2], 0.7, failed="npm run build", fixed="timeout 15 npm test")
    assert reruns.changed_programs(wrapped) is None  # still npm


def test_inside_a_container_is_no_program_missing_here() -> None:
    """Found by a second review: a rerun inside a container says where, not "not found here"."""

    moment = Moment("error-fix", [1, 2], 0.7, failed="pytest", operation="pytest",
                    fixed="docker compose exec web pytest",
                    error="bash: pytest: command not found",
                    changes=["inside `docker compose exec web`"])  # fmt: skip
    assert reruns.rerun_reason(moment) == ""
    assert reruns.rerun_rule(moment) == "Run `pytest` inside `docker compose exec web`"


def test_a_program_is_missing_only_when_its_own_name_is() -> None:
    """`node` is not missing because `nodemon` is: the failure must name the program itself
    (one test for both the rule's wording and the gate, `missing_named`)."""

    moment = Moment("error-fix", [1, 2], 0.7, failed="node build.js", operation="node",
                    fixed="bun build.js", error="sh: 1: nodemon: not found")  # fmt: skip
    assert reruns.rerun_reason(moment) == ""
    assert reruns.rerun_rule(moment) == "Use `bun`, not `node`"
    missing = Moment("error-fix", [1, 2], 0.7, failed="node build.js", operation="node",
                     fixed="bun build.js", error="sh: 1: node: not found")  # fmt: skip
    assert reruns.rerun_rule(missing) == "`node` is not found here: run `bun`"


def test_the_body_of_a_long_message_quotes_the_part_that_holds_the_rule() -> None:
    """Both blind reviewers of corpus-m rejected a draft whose rule stood past the quoted
    400 characters: the evidence must show the rule, so the body quotes the opening and the
    part that holds it."""
    bullets = "\n".join(f"- Principle {i}: the service keeps module {i} small." for i in range(12))
    said = (
        f"Create principles for the rewrite:\n{bullets}\n- Never log secrets; keep the logs lean."
    )
    moment = Moment("follow-up", [20], 0.6, said=said)
    draft = draft_for(moment, path="s.jsonl", root="/repo")
    assert draft is not None and draft.summary.startswith("Never log secrets")
    assert "> - Never log secrets; keep the logs lean." in draft.body
    assert draft.body.count("…") >= 2  # the cut is shown


def test_the_quote_of_a_long_message_holds_the_whole_rule() -> None:
    """From a second review: the excerpt stopped inside the rule ("…Never use npm in this
    re …"); it runs to the rule's end."""
    from orbit_learnings.curation.capture.drafting.evidence import _quote

    rule = "Never use npm in this repository, always use pnpm for installs"
    said = "Context paragraph. " * 25 + "\n" + "Some detail on the build we found " * 5 + rule
    assert "always use pnpm for installs" in _quote(said, around=rule)
