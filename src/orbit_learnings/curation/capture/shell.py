"""A command line as a shell reads it, for naming what it runs.

An agent's command line holds data as often as commands: a file written with `cat > x
<<'EOF'`, a commit message in `"$(cat <<'EOF' … EOF)"`, a script passed to `python -c`.
Tokenising that data is slow (a 4 MB transcript of heredoc writes took 6 s in a hook) and
finds commands nobody ran (`&&` inside a body). So the line is read as a shell reads it,
by small scanners rather than regular expressions (linear on any input): here-documents'
bodies left out, a line break ending a command, a command substitution held as one word
and given back as written.
"""

from __future__ import annotations

import re
import shlex

MAX_COMMAND_CHARS = 1000  # what is read of one command line: beyond it is a script's body


def without_data(command: str) -> str:
    """The command line without what it only feeds a program: here-documents' bodies (a
    file written with `cat > x <<'EOF'` holds `&&` and quotes of its own) and whatever runs
    past `MAX_COMMAND_CHARS`; a command substitution (`-j$(nproc)`) held together as one
    word (`tokens` gives it back as written). Tokenising a body is slow and finds commands
    nobody ran."""
    if "<<" in command:
        command = _drop_heredocs(command)
    if "$(" in command:
        command = _hold_substitutions(command)
    if "\n" in command:
        command = _lines_as_commands(command)
    return command[:MAX_COMMAND_CHARS]


def _lines_as_commands(command: str) -> str:
    """An unquoted line break ends a command, as in a shell (a `\\` before it continues the
    line): `cd web\nnpm test` is two commands."""
    out: list[str] = []
    quote = ""
    position = 0
    while position < len(command):
        char = command[position]
        position += 1
        if char == "\\" and quote != "'":
            escaped = command[position : position + 1]
            out.append(" " if escaped == "\n" else char + escaped)  # `\` + line break: one line
            position += 1
            continue
        if char == "#" and not quote and (not out or out[-1] in " \t;\n"):
            end = command.find("\n", position)  # a comment: no quote in it opens anything
            position = len(command) if end < 0 else end
            continue
        quote = _quote_after(quote, char)
        out.append(" ;\n" if char == "\n" and not quote else char)
    return "".join(out)


# <<WORD, <<-WORD, <<'WORD', <<"WORD", <<\WORD: not <<< (a here-string), not inside quotes.
_MARKER = re.compile(r"<<(?P<dash>-?)[ \t]*\\?(?P<q>['\"]?)(?P<word>[A-Za-z_][\w-]*)(?P=q)")


def _marker_at(command: str, position: int) -> re.Match[str] | None:
    """A here-document's marker starting at `position` (not a here-string's `<<<`, from
    either of its first two `<`)."""
    if command[position - 1 : position] == "<" or command.startswith("<<<", position):
        return None
    return _MARKER.match(command, position)


def _quote_after(quote: str, char: str) -> str:
    """The quote open after `char`: a quote mark opens one, the same mark closes it."""
    if char in "'\"" and (not quote or char == quote):
        return "" if quote else char
    return quote


def _drop_heredocs(command: str) -> str:
    """Each here-document's body and terminator left out; the line that opened it ends
    (` ;`): what follows the terminator is the next command."""
    out: list[str] = []
    pending: list[tuple[str, bool]] = []  # (terminator, `<<-`) opened on the current line
    quote, position = "", 0
    while position < len(command):
        char = command[position]
        if char == "\n" and pending and not quote:
            out.append(" ;")
            position = _after_bodies(command, position + 1, pending)
            pending = []
            continue
        marker = None if quote or char != "<" else _marker_at(command, position)
        if marker:
            pending.append((marker["word"], marker["dash"] == "-"))
            out.append(marker.group(0))
            position = marker.end()
            continue
        if char == "\\" and quote != "'":
            out.append(command[position : position + 2])
            position += 2
            continue
        quote = _quote_after(quote, char)
        out.append(char)
        position += 1
    return "".join(out)


def _after_bodies(command: str, start: int, pending: list[tuple[str, bool]]) -> int:
    """Where the command goes on after the bodies of `pending`, read line by line from
    `start`: past each terminator in turn (`<<-` lets tabs or spaces lead it)."""
    position = start
    for word, dash in pending:
        while position < len(command):
            end = command.find("\n", position)
            end = len(command) if end < 0 else end
            line = command[position:end]
            position = end + 1
            line = line.removesuffix("\r")
            if (line.lstrip(" \t") if dash else line) == word:
                break
    return min(position, len(command))


# Inside `$(…)`, what would split a word or a command for the tokeniser, held as characters
# of the private-use area and given back by `tokens`.
_HELD = {" ": "\ue002", "\t": "\ue003", "|": "\ue004", ";": "\ue005", "&": "\ue006",
         "<": "\ue007", ">": "\ue008", "(": "\ue009", ")": "\ue001", "\n": "\ue00a",
         "'": "\ue00b", '"': "\ue00c"}  # fmt: skip
_HOLD = str.maketrans(_HELD)  # a here-document inside `$(…)`: held whole, never followed
_GIVEN_BACK = str.maketrans({"\ue000": "$(", **{v: k for k, v in _HELD.items()}})


def _hold_substitutions(command: str) -> str:
    """`$(…)` outside single quotes as one word: everything in it that a tokeniser would
    split on or unquote held, nested ones too; each `$(` opens quoting of its own, as in a
    shell, and a `)` inside its quotes does not close it."""
    out: list[str] = []
    quotes = [""]  # the quote open at each depth of `$(`
    position = 0
    while position < len(command):
        char, quote = command[position], quotes[-1]
        position += 1
        if quote != "'" and command.startswith("$(", position - 1):
            out.append("\ue000")
            quotes.append("")
            position += 1
        elif len(quotes) == 1:  # outside: only the quoting is followed
            if char == "\\" and quote != "'":
                out.append(command[position - 1 : position + 1])
                position += 1
                continue
            quotes[-1] = _quote_after(quote, char)
            out.append(char)
        else:
            if char == "\\" and quote != "'":
                escaped = command[position : position + 1]
                out.append("\\" + _HELD.get(escaped, escaped))
                position += 1
                continue
            marker = None if quote or char != "<" else _marker_at(command, position - 1)
            if marker:
                body_end = command.find("\n", marker.end())
                if body_end >= 0:
                    stop = _after_bodies(
                        command, body_end + 1, [(marker["word"], marker["dash"] == "-")]
                    )
                    out.append(command[position - 1 : stop].translate(_HOLD))
                    position = stop
                    continue
            if char in "'\"":
                quotes[-1] = _quote_after(quote, char)
            elif char == "(" and not quote:
                quotes.append("")  # `$((…))`, `$( (cd a; ls) )`: a `)` closes it first
            elif char == ")" and not quote:
                quotes.pop()
            out.append(_HELD.get(char, char))
    return "".join(out)


def tokens(command: str) -> list[str]:
    """The words of a command line as a shell splits them (quotes removed), its data left
    out (`without_data`)."""
    return split(without_data(command))


def split(command: str) -> list[str]:
    """The words of a line `without_data` already read, held characters given back."""
    lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        words = list(lexer)
    except ValueError:  # unbalanced quotes: good enough for naming the operation
        words = command.replace("&&", " && ").replace("|", " | ").replace(";", " ; ").split()
    return [word.translate(_GIVEN_BACK) for word in words]
