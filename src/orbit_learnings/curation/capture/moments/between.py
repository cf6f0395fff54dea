"""What came between a failure and the rerun that passed unchanged: a setup step (a
package installed, a service started), a repair of the files (a mode bit, a folder, line
endings), or the person doing what the failure asked of them (a license, a login).

Each is a moment for the reviewer, never a draft: whether it was the fix is their call
(`drafting.reruns.error_fix_reason`). `operations` finds the failure and the pass; this
module says what set the environment up in between."""

from __future__ import annotations

import re
from dataclasses import dataclass

from orbit_learnings.curation.capture import commands
from orbit_learnings.curation.capture.moments.base import (
    AFTER,
    TEST_FAILURE,
    Moment,
    edit_lines,
    failed,
    first_error_line,
)
from orbit_learnings.curation.capture.sessions import USER, Turn

# Commands that change the environment rather than the code: installing or pinning a
# package, starting a service, generating code, migrating a database, marking a folder safe.
# Matched on the command's own words (`commands.program_words`), not its operation's key.
ENVIRONMENT_SETUP = re.compile(
    r"^((pip3?|conda|mamba|brew|apt|apt-get|gem|pipx|python3? -m pip) install|"
    r"uv (add|sync|pip install)|(npm|pnpm|yarn|bun) (install|i|ci|add)|poetry (add|install)|"
    r"cargo add|go (get|mod (tidy|download))|bundle install|composer (install|require)|"
    r"(docker compose|docker-compose) (up|start)|docker start|brew services start|"
    r"systemctl (start|restart)|service \S+ (start|restart)|git config( --global)? --add|"
    r"git config( --global)? (user|safe|core)\.|prisma (generate|migrate)|alembic upgrade|"
    r"rails db:\w+)\b"
)


def is_setup(call: Turn, results: dict[str, Turn], *, repairs: bool = True) -> bool:
    """A command of `ENVIRONMENT_SETUP`, or (with `repairs`) one that repaired files, that
    did not itself fail."""
    if call.tool != "Bash" or failed(results.get(call.tool_id)):
        return False
    command = str(call.tool_input.get("command", ""))
    return (repairs and repairs_files(call, results)) or any(
        ENVIRONMENT_SETUP.match(" ".join(commands.program_words(w)))
        for w in commands.segments(command)
    )


# Commands that repair files rather than write code: a mode bit, a missing folder, line
# endings (`dos2unix`, `sed -i 's/\r$//'`, a here-document script that drops `\r`). An agent
# edits code with its edit tools, or with `sed -i` and scripts too: only a repair of these
# kinds, between a failure and a rerun, is the environment.
_REPAIR = re.compile(r"^(chmod|dos2unix|unix2dos|mkdir|git update-index --chmod)\b")
_LINE_ENDINGS = re.compile(r"\\r")


def repairs_files(call: Turn, results: dict[str, Turn]) -> bool:
    if call.tool != "Bash" or failed(results.get(call.tool_id)):
        return False
    command = str(call.tool_input.get("command", ""))
    rewrites = "<<" in command or re.search(r"\b(sed -i|perl -pi)", command)
    if rewrites and _LINE_ENDINGS.search(command):
        return True  # `python3 - <<'PY' … text.replace(b"\r\n", b"\n")`, `sed -i 's/\r$//'`
    return any(
        _REPAIR.match(" ".join(commands.program_words(w))) for w in commands.segments(command)
    )


def step_of(call: Turn) -> str:
    """A command as a rule names it: its first line (a here-document's body is data)."""
    command = str(call.tool_input.get("command", "")).strip()
    head, _, rest = command.partition("\n")
    return f"{head[:80]} …" if rest else commands.first_segment(command)[:80]


PERSON_FIXED = 0.55  # like a setup step: what the person did is read off the failure
# A failure that asks for a person: a license to accept, a login, credentials, a password.
_PERSON_ACTION = re.compile(
    r"(accept|agree(d)? to) the [^\n]{0,40}licen[cs]e|\bnot logged in(to)?\b|"
    r"\brun:?\s+`?[\w-]+ (auth )?login\b|\bplease (log|sign) ?in\b|"
    r"\bauthentication (is )?required\b|\bcredentials (are )?(missing|required|not found)\b",
    re.I,
)


@dataclass(frozen=True)
class Rerun:
    """One operation that failed (`first`, its output `result`; last at `last_failure`) and
    then passed with no change to its command that the moments count (`success`; whether its
    shape changed at all is the caller's `same`), with the calls `between` the last failure
    and the pass."""

    key: str
    first: Turn
    result: Turn
    last_failure: Turn
    success: Turn
    between: list[Turn]

    def moment(self, step: Turn, score: float, change: str) -> Moment:
        """The error-fix moment, `step` the line of what came between."""
        moment = Moment("error-fix", [self.first.line, step.line, self.success.line], score)
        moment.operation = self.key
        moment.failed = str(self.last_failure.tool_input.get("command", "")).strip()
        moment.fixed = str(self.success.tool_input.get("command", "")).strip()
        moment.error = first_error_line(self.result.text)
        moment.changes = [f"{AFTER}{change}"]
        return moment


def person_fixed(
    rerun: Rerun, turns: list[Turn], results: dict[str, Turn], *, same: bool
) -> Moment | None:
    """The rerun passed unchanged (`same`: how it ran did not change) after the person
    spoke, with no edit between, and the failure asked for what only a person can do (accept
    a license, log in, authenticate): they did it where the agent cannot. A flaky failure the
    person waved on ("ok") is not."""
    if any(edit_lines(t) for t in rerun.between) or not same:
        return None  # code work, or another command: the person told the agent what to run
    asked = results.get(rerun.last_failure.tool_id, rerun.result)  # what the person answered
    if not _PERSON_ACTION.search(asked.text[:3000]):
        return None
    low, high = rerun.last_failure.line, rerun.success.line
    spoke = [t for t in turns if t.kind == USER and t.text.strip() and low < t.line < high]
    if not spoke:
        return None
    moment = rerun.moment(spoke[-1], PERSON_FIXED, "the person's step")
    moment.said = spoke[-1].text.strip()[:300]
    return moment


def set_up_first(rerun: Rerun, results: dict[str, Turn]) -> Moment | None:
    """The rerun passed unchanged after a command that set the environment up (`pip install
    'bcrypt<4.0'`, `docker compose up -d db`): the operation needs it first."""
    testing = bool(TEST_FAILURE.search(rerun.result.text[:4000]))  # a repair then is code work
    setups = [c for c in rerun.between if is_setup(c, results, repairs=not testing)]
    if not setups:
        return None  # a retry, or ordinary code work making a test pass
    return rerun.moment(setups[-1], SET_UP, f"`{step_of(setups[-1])}`")


SET_UP = 0.55  # below a rerun whose command changed: the setup may be ordinary work
