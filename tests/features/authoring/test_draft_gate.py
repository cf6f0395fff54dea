"""A draft only when a rule can be stated with confidence; every other moment stays a moment.

Blind reviewers kept 8 and 7 of the tuning set's 20 deterministic drafts. They rejected the
person's raw message made a title (a task request, a question, a chatty remark, answers to
the agent's setup questions), a failed-then-fixed command credited with the wrong cause or
the agent's own sandbox, a path of one machine, a silent refusal read as "don't remove X".
The sessions below are shaped as Claude Code writes them, with words from real public
sessions (tests/eval/capture/tuning); each test failed before the gate (a draft was made).

A second round: two more blind reviewers judged the 27 drafts of a local corpus of 57 more
public sessions (fetched, so kept out of git) and agreed on every one: 6 kept. The shapes
they rejected (the speaker's own state, a requirement of what is being built, a bug report,
a pointer at "that", a fragment, a task in another language) are cases below.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from orbit_learnings.curation.capture.drafting import draft_for, draft_or_reason
from orbit_learnings.curation.capture.drafting.gate import long_job_reason, person_reason
from orbit_learnings.curation.capture.extract import Extraction, extract_sessions
from orbit_learnings.curation.capture.moments import Moment
from tests.features.authoring import claude_records as claude
from tests.features.authoring.claude_records import CWD, write_session
from tests.testing import CliRunner


def _extract(tmp_path: Path, *records: dict[str, object]) -> Extraction:
    return extract_sessions([str(write_session(tmp_path, *records))], None)


_PLAN = (
    "# Plan: release 2.1\n\n## Steps\n\n- Never push to `main` directly: always open a pull "
    "request from a `release/*` branch.\n- Tag the release after the changelog is merged."
)


def test_a_refusal_that_hands_back_the_agents_own_plan_is_no_rule_of_the_person(
    tmp_path: Path,
) -> None:
    """Found in a corpus-i session: the person refused `ExitPlanMode` by pasting the plan they
    were shown, its markdown gone. It reads like a rule ("Never push to main directly") but
    every word is the agent's, so it stays a moment; the same rule in the person's own words,
    refusing a push, is still drafted."""
    pasted = (
        "Plan: release 2.1 Steps Never push to main directly: always open a pull request "
        "from a release/* branch. Tag the release after the changelog is merged."
    )
    echoed = _extract(
        tmp_path,
        claude.record("user", "Plan the 2.1 release."),
        claude.call("t1", "ExitPlanMode", plan=_PLAN),
        claude.refused("t1", pasted),
    )  # fmt: skip
    assert [m.kind for _, m in echoed.moments] == ["rejection"] and echoed.drafts == []
    assert echoed.undrafted[0]["why"] == (
        "the agent's own words handed back (its plan, its edit), not the person's"
    )
    own = _extract(
        tmp_path,
        claude.record("user", "Ship the 2.1 release."),
        claude.call("t1", "Bash", command="git push origin main"),
        claude.refused("t1", "Never push to main directly: always open a pull request."),
    )  # fmt: skip
    assert [d.detector for d in own.drafts] == ["rejection"]


def test_a_rule_inside_a_prompt_template_is_no_rule_of_the_person(tmp_path: Path) -> None:
    """Found in a corpus-f session: a custom prompt (BMAD's `<steps>`) expanded into the
    person's message holds "Always LOAD the FULL workflow.xml". The moment quotes that one
    sentence, so the gate reads the whole message for markup; a rule the person typed with
    the task is still drafted."""
    template = (
        'IT IS CRITICAL THAT YOU FOLLOW THESE STEPS:\n\n<steps CRITICAL="TRUE">\n'
        "1. Always LOAD the FULL @.bmad/core/tasks/workflow.xml\n2. READ its entire contents\n"
        "</steps>\n"
    )
    found = _extract(tmp_path, claude.record("user", template))
    assert [m.kind for _, m in found.moments] == ["stated"] and found.drafts == []
    assert found.undrafted[0]["why"] == "pasted markup or a prompt template, not the person's rule"
    typed = _extract(
        tmp_path, claude.record("user", "Fix the login form. Never commit `.env` files.")
    )
    assert [d.detector for d in typed.drafts] == ["stated"]


def _edit(call_id: str, name: str) -> dict[str, object]:
    return claude.call(call_id, "Edit", file_path=f"{CWD}/{name}", old_string="a", new_string="b")


def test_an_interruption_asking_to_talk_first_is_a_moment_without_a_draft(
    tmp_path: Path,
) -> None:
    found = _extract(
        tmp_path,
        claude.record("user", "Handle the subcategory cases in the invalidation function."),
        _edit("t1", "db/functions/check_for_calculation_invalidation.sql"),
        claude.result("t1", "The user doesn't want to proceed with this tool use.", error=True),
        claude.interrupted(),
        claude.record("user", "Talk to me about the logic first.  How can I succintly handle all "
                        "these cases in a logical way?"),
    )  # fmt: skip
    assert [m.kind for _, m in found.moments] == ["interruption"]  # the moment is found …
    assert found.drafts == []  # … but "Talk to the user about the logic first" is no rule
    (kept,) = found.undrafted
    assert kept["moment"] == "interruption" and kept["why"] == (
        "a request for this task, not a standing rule"
    )
    assert str(kept["quote"]).startswith("Talk to me about the logic first.")


def _said(kind: str, said: str) -> Moment:
    return Moment(kind, [20], 0.6, said=said)


@pytest.mark.parametrize(
    ("kind", "said", "why"),
    [
        ("redo", "adjust specs/001/plan.md so that it matches the chosen tech stack in "
                 "spec.md ## 5. Technology Stack", "a request for this task"),
        ("follow-up", "lol im not catting the sg keyring to u. but its there", "no word makes it"),
        ("follow-up", "язык - русский, тип проектов - развитие программы лояльности, колонки "
                      "таблицы - задача, результат, git не использую, мне нужен план в виде шагов.",
         "no word makes it"),
        ("follow-up", "删除目前claude下所有skills,软链并使用我提供的文件夹下的skills,以后自动创建或者"
                      "我要求创建的skills也都存放在我提供的文件下", "only the conversation shows"),
        ("follow-up", "Always save the exports to C:\\Users\\admin\\Downloads, never the repo",
         "one machine"),
        ("follow-up", "Never put the fixtures in /Users/bholt/scratch/fixtures", "one machine"),
        ("rejection", "always use relative paths with apply_patch", "the agent's own tool"),
        # Rejected by both blind reviewers of the local corpus' 27 drafts (see the module doc):
        ("follow-up", "I don't need to pass \"jaro\" into the specialArgs.", "the speaker's own"),
        ("after-error", "It makes the user feel as though `nixpkgs` should be used at the callsite",
         "the speaker's own"),
        ("follow-up", "It should force the LLM to use only the commands mentioned in the prompt",
         "a requirement of what is being built"),
        ("interruption", "Must be updated to support the standards of this project",
         "a requirement of what is being built"),
        ("redo", "I like the new format, but now the code is not shown at all", "the speaker's own"),
        ("pasted-error", "This means that there is a bug where parameters don't exist", "a bug report"),
        ("pasted-error", "fatal: not a git repository (or any of the parent directories): .git",
         "a bug report or an error"),
        ("follow-up", "Dont touch that\\", "only the conversation shows"),
        ("interruption", "Remember, we need something like:", "no rule"),
        ("after-error", "Use this remote: https://github.com/acme/town.git", "only the conversation"),
        ("after-error", "Don't change any other files", "a request for this task"),
        ("follow-up", "We dont need the Visual, Swimlane contents to be stored anymore",
         "a request for this task"),
        ("interruption", "Instead of duplicate tables with the same structure", "a fragment"),
        ("follow-up", "查看系统里所有端口占用状况，生成端口占用表`teacher/port.csv`", "a request for this task"),
        ("interruption", "Dont run", "too short"),
        # Reviewers split on this one (a rule to one, a finished edit to the other); said
        # after an edit, with no word that makes it standing, it is a moment since the third
        # round of reviews (the gate's precision on sessions it was not shaped on).
        ("redo", "Let's reference a var for VITE_YNAB_REDIRECT_URI", "no word makes it"),
        ("after-error", "Use this as a mobile app", "no word makes it"),  # "use X" not refusing
        ("interruption", "See `business_process_categories` for the layout", "only the conversation"),
        # Rejected by both blind reviewers of the fourth and sixth rounds (held-out and
        # corpus-d drafts): a class word that is a flag's value, a "should" with the task's
        # request, an apology, a task verb the negation belongs to, a pointer at the
        # conversation, pasted markup and a prompt template.
        ("interruption", "Python `train.py` `--pipeline` all `--epochs` 200", "no word makes it"),
        ("interruption", "继续创建项目，使用 `--approve-all`", "a request for this task"),
        ("interruption", "python3 should point to python 3.11. Please make it so", "a moment"),
        ("interruption", "Sorry delete all of that it was wrong file", "no word makes it"),
        ("stated", "提交到GitHub（仓库名不要惹眼，比如用 data-aggregator 这类名字）", "a moment"),
        ("follow-up", "前端预览就是裁切后的图片，不要预览原始的图片，按你的建议 1280",
         "only the conversation"),
        ("follow-up", "请不要对图片进行矫正这一步不需要", "a request for this task"),
        ("redo", '<div class="p-4 border-b"><div class="text-sm">Image B</div></div> 也不要',
         "pasted markup"),
        ("after-error", 'IT IS CRITICAL THAT YOU FOLLOW THESE STEPS:\n\n<steps CRITICAL="TRUE">\n'
                        "1. Always LOAD the FULL @.bmad/core/tasks/workflow.xml\n</steps>",
         "pasted markup"),
        # Rejected by both blind reviewers of the seventh round (two corpora measured once as
        # they came): a rule word inside a clause that shapes this task's request.
        ("follow-up", "1. chunks will be defined by number of rows, 2. your suggestions look "
                      "fine. 5. assume i do not,  just use the standard cdk constructs",
         "a moment"),
        ("follow-up", "Lastly preivew how that would lookk with a few different kinds of "
                      "separators instead of the pipes", "a moment"),
        ("follow-up", "2️⃣ 점수 대신 상태 중심 문구로 바꾸기", "a moment"),
        ("follow-up", "互換性は不要", "a moment"),
        ("follow-up", "Use terminal instead of powershell then", "only the conversation"),
        # Rejected by both blind reviewers of the ninth round (corpus-i and -j as they came):
        # a clause with 不 that is no negated rule ("I may not notice", "those that cannot").
        ("follow-up", "但是低等级客户，我可能发现不了", "no word makes it"),
        ("stated", "乘客说我要退款 → AI 判断情境,能自动退的自动处理,不能的转人工", "a moment"),
        ("follow-up", "Put `restart: always` on the db service", "no word makes it"),  # code
        # Found by a second review: a negation this task's verb owns, "prefer to", 别 inside a
        # word (特别), a refusal's "only".
        ("follow-up", "Commit the changes, don't push yet", "a request for this task"),
        ("follow-up", "Fix the login bug, don't worry about the tests", "a request for this task"),
        ("stated", "提交到GitHub，仓库名不要惹眼，比如用 data-aggregator 这类名字",
         "a request for this task"),
        ("follow-up", "I'd prefer to keep the PR small for now", "a moment"),
        ("follow-up", "客户分组展示，特别是高等级客户的订单", "a moment"),
        ("rejection", "keep it to the first page only", "no word makes it"),
        ("interruption", "而且要做到每一步必须完成有明确输出后才可以进行下一步", "a moment"),
        ("redo", "2、需要添加所有平台的测试用例，包括安卓与HarmonyOS,同时需要注意，iOS需要支持OC",
         "a moment"),
    ],
)  # fmt: skip
def test_words_that_are_no_standing_rule_give_no_draft(kind: str, said: str, why: str) -> None:
    reason = draft_or_reason(_said(kind, said), path="s.jsonl", root=CWD)
    assert isinstance(reason, str) and why in reason


@pytest.mark.parametrize(
    ("kind", "said", "summary"),
    [
        ("follow-up", "以后所有的claude skill 保存在我本地个人目录,而非项目目录",
         "以后所有的claude skill 保存在我本地个人目录,而非项目目录"),  # 以后 / 而非: a rule word
        ("interruption", "采用如下方案,我指定创建的skills增加custom前缀,自动创建的不管",
         "我指定创建的skills增加custom前缀,自动创建的不管"),  # "X, not Y": a negated clause
        ("rejection", "no, reference a var for VITE_YNAB_REDIRECT_URI",
         "Reference a var for `VITE_YNAB_REDIRECT_URI`"),  # "use X" and its kin, when refusing
        ("follow-up", "Use pnpm, not npm, in web/", "Use pnpm, not npm, in web/"),
        ("follow-up", "Always keep the line length below 100", "Always keep the line length "
                      "below 100"),  # "below" is no pointer at the conversation here
        ("follow-up", "from now on save claude skills in ~/.claude/skills, never in the repo",
         "From now on save claude skills in `~/.claude/skills`, never in the repo"),  # any home
        # Kept by both blind reviewers of the local corpus' drafts:
        ("interruption", "Pleas do not add your signature on the commit messages",
         "Do not add your signature on the commit messages"),  # the lead-in's typo dropped too
        ("redo", "We don't need reversible migrations, we are in dev mode",
         "We don't need reversible migrations, we are in dev mode"),
        ("interruption", "The CLAUDE file is on the gitignore, dont talk about it",
         "The CLAUDE file is on the gitignore, dont talk about it"),
    ],
)  # fmt: skip
def test_rules_the_reviewers_kept_are_still_drafted(kind: str, said: str, summary: str) -> None:
    draft = draft_for(_said(kind, said), path="s.jsonl", root=CWD)
    assert draft is not None and draft.summary == summary


def test_a_variable_the_failure_never_names_gets_no_credit(tmp_path: Path) -> None:
    found = _extract(
        tmp_path,
        claude.record("user", "Run the webhook tests."),
        claude.call("t1", "Bash", command="npm test -- webhooks"),
        claude.result("t1", "Error: Cannot find module './config/local'\n    at Object.<anonymous>",
                error=True),
        claude.call("t2", "Bash", command="NODE_ENV=test npm test -- webhooks"),
        claude.result("t2", "Tests: 12 passed, 12 total"),
    )  # fmt: skip
    assert [m.kind for _, m in found.moments] == ["error-fix"]
    assert found.drafts == []  # was "`npm test` needs `NODE_ENV=test`": the error says a module
    assert found.undrafted[0]["why"] == "the failure does not name what changed"


def test_a_variable_the_failure_names_is_the_rule(tmp_path: Path) -> None:
    found = _extract(
        tmp_path,
        claude.record("user", "Run the webhook tests."),
        claude.call("t1", "Bash", command="npm test -- webhooks"),
        claude.result("t1", "Error: NODE_ENV must be 'test' to load .env.test", error=True),
        claude.call("t2", "Bash", command="NODE_ENV=test npm test -- webhooks"),
        claude.result("t2", "Tests: 12 passed, 12 total"),
    )  # fmt: skip
    assert [d.summary for d in found.drafts] == ["`npm test` needs `NODE_ENV=test`"]


def _error_fix(**given: object) -> Moment:
    moment = Moment("error-fix", [10, 14], 0.7)
    for name, value in given.items():
        setattr(moment, name, value)
    return moment


@pytest.mark.parametrize(
    ("moment", "why"),
    [
        (_error_fix(operation="bun remove", failed="bun remove -g opencode || true",
                    fixed="bun remove -g opencode || true",
                    error="error: An internal error occurred (PermissionDenied)",
                    changes=["outside the sandbox (escalated permissions)"]),
         "the agent's sandbox"),
        (_error_fix(operation="apply_patch", failed="apply_patch <<'EOF'",
                    fixed="cd web && apply_patch <<'EOF'",
                    error="Invalid patch: The last line of the patch must be '*** End Patch'",
                    changes=["from `web`"]),
         "the agent's own tool syntax"),
        (_error_fix(operation="npm run lint", failed="npm run lint", fixed="npm run lint",
                    error="Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'typescript-eslint'",
                    edits=[("/Users/dev/shop/frontend/eslint.config.js",
                            "import tseslint from 'typescript-eslint';",
                            "import js from '@eslint/js';\nimport path from 'node:path';")],
                    files=["/Users/dev/shop/frontend/eslint.config.js"]),
         "the failure does not name the fix"),  # was "… fails with … until … is fixed"
    ],
)  # fmt: skip
def test_a_fix_that_is_no_project_rule_gives_no_draft(moment: Moment, why: str) -> None:
    reason = draft_or_reason(moment, path="s.jsonl", root=CWD)
    assert isinstance(reason, str) and why in reason


def test_a_finding_about_the_agents_own_tool_is_no_project_rule() -> None:
    moment = Moment("finding", [12], 0.5, files=[f"{CWD}/web/package.json"],
                    said="The issue is that `apply_patch` needs paths relative to the workdir.")  # fmt: skip
    assert draft_or_reason(moment, path="s.jsonl", root=CWD) == (
        "the agent's own tool syntax, not the project's"
    )


def test_a_wordless_refusal_and_a_path_out_of_reach_stay_moments() -> None:
    test_file = f"{CWD}/ynab_web/tests/integration/loading-state-test.ts"
    refused = Moment("refused", [163, 164], 0.6, files=[test_file],
                     said="Let me remove that pauseTest since it's not needed:")  # fmt: skip
    refused.edits = [(test_file, "    await this.pauseTest();\n    ok();", "    ok();")]
    unreachable = Moment("unreachable", [17, 20], 0.55, files=["C:\\Users\\David\\Documents"])
    for moment in (refused, unreachable):
        assert isinstance(draft_or_reason(moment, path="s.jsonl", root=CWD), str)


@pytest.mark.parametrize(
    ("said", "files"),
    [
        ("The issue is that the server isn't initialized until something triggers it (like "
         "`visit`).", [f"{CWD}/spec/support/capybara.rb"]),  # the subject names no code
        ("I need to correct my earlier advice. Looking at line 348-350, **both** tracking "
         "mechanisms are controlled by `automaticExposureTracking`.", []),  # no file
    ],
)  # fmt: skip
def test_a_finding_without_named_code_in_a_file_stays_a_moment(said: str, files: list[str]) -> None:
    moment = Moment("finding", [43], 0.5, said=said, files=files)
    assert draft_for(moment, path="s.jsonl", root=CWD) is None


def test_extract_shows_the_moments_without_a_draft(
    tmp_path: Path, workspace: Path, orbit: CliRunner
) -> None:
    path = tmp_path / "session.jsonl"
    records = [
        claude.record("user", "Handle the subcategory cases."),
        _edit("t1", "db/check.sql"),
        claude.result("t1", "The user doesn't want to proceed with this tool use.", error=True),
        claude.interrupted(),
        claude.record("user", "Talk to me about the logic first."),
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    shown = orbit("learning", "extract", str(path))
    assert "moment\tinterruption\t" in shown.out and "Talk to me about the logic" in shown.out
    assert "1 moment(s) without a draft" in shown.out
    data = orbit("learning", "extract", str(path), "--json").json()
    assert data["drafts"] == [] and data["moments_without_draft"][0]["moment"] == "interruption"


def test_a_long_job_that_never_returns_stays_a_moment_while_a_tool_waiting_is_drafted() -> None:
    """A training script runs long by design (both reviewers rejected "`python train.py`
    hangs"); a tool that waits for a terminal is the lesson (both kept `claude doctor`)."""
    job = Moment("hang", [14, 15], 0.55, failed="python train.py --epochs 50", operation="python")
    tool = Moment("hang", [42, 46], 0.55, failed="claude doctor 2>&1", operation="claude")
    assert "runs long" in str(draft_or_reason(job, path="s.jsonl", root=CWD))
    assert draft_for(tool, path="s.jsonl", root=CWD) is not None


def test_a_command_rerun_with_sudo_stays_a_moment() -> None:
    moment = Moment("error-fix", [10, 14], 0.7, operation="mkdir", failed="mkdir -p /opt/app",
                    fixed="sudo mkdir -p /opt/app", changes=["with `sudo`"],
                    error="mkdir: cannot create directory '/opt/app': Permission denied")  # fmt: skip
    assert "root rights" in str(draft_or_reason(moment, path="s.jsonl", root=CWD))


@pytest.mark.parametrize(
    "said",
    [
        "When running tests always use `make test`",  # opens like a fragment
        "The tests must never hit the network",  # like a requirement, but negated: a rule
        "Warning messages should never be ignored",  # opens like pasted output
        "Create migrations with `alembic revision`, never by hand",  # "crea…" is no Spanish verb
        "Implementation files must never import from tests",
        "请不要使用 npm，始终使用 pnpm",  # a polite Chinese rule
        "I'd prefer we never use npm here",
        "Don't use npm, it doesn't work with our workspaces",
        "Never use this flag: --force",
    ],
)
def test_a_standing_word_outweighs_shapes_that_only_usually_mean_no_rule(said: str) -> None:
    """Found by review: the shapes reviewers rejected (a fragment, a requirement, an error,
    a task verb in another language) refused these rules until a standing word outweighed them."""
    assert draft_for(_said("follow-up", said), path="s.jsonl", root=CWD) is not None, said


@pytest.mark.parametrize(
    ("command", "long_job"),
    [("python train.py --epochs 50", True), ("cd x && uv run python scripts/run.py", True),
     ("vim src/app.py", False), ('git commit -m "fix app.py"', False),
     ("uv run pytest tests/test_api.py", False)],
)  # fmt: skip
def test_a_long_job_is_a_script_run_by_its_interpreter(command: str, long_job: bool) -> None:
    assert (long_job_reason(command) is not None) is long_job


@pytest.mark.parametrize(
    "said",
    [
        # Found by review: shapes the firm gate must keep (each was a draft before it).
        "Run `pnpm test`, not `npm test`",  # "X, not Y" opening with a task verb
        "Install deps with pnpm, not npm",
        "Run tests with pnpm, don't use npm",  # a clause that opens by forbidding
        'Never use inline styles like `<div style="color:red">` in templates',  # code
        "Never wrap button labels in a <p> tag",  # one tag named, nothing pasted
        "Never commit to main, push a branch then",  # "then" with a standing word
        "Never edit the wrong file again, check the path first",
        "Prefer pnpm over npm in this repo",
        "Don\u2019t use npm here, it breaks the workspaces",  # a typographic apostrophe
        "Never hardcode <token> in scripts, read <TOKEN_FILE> instead",  # placeholders
        'Never use `<div class="a"></div>` wrappers in templates',  # markup in code format
    ],
)
def test_firm_rules_stay_drafts(said: str) -> None:
    assert draft_for(_said("follow-up", said), path="s.jsonl", root=CWD) is not None, said


def test_a_standing_word_the_summary_puts_in_code_is_still_read() -> None:
    """Found by a second review: the summary puts `DATABASE_URL_TEST` in code format though
    the person did not, and the sentence's "stop writing" must still be found."""
    said = "stop writing to prod; use DATABASE_URL_TEST for that"
    assert person_reason("Use `DATABASE_URL_TEST` for that", said=said) is None
