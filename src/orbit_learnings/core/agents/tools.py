"""The tools coding agents use on files, by agent and by what each does: one list that the
hooks (which calls name files), their installers (which tools an entry subscribes to) and
capture (which turns of a transcript edited a file) all read. Before it there were four
lists, and they disagreed.

Names are the agents' own spelling; the hooks compare them case-insensitively. Plain
tuples, no imports: a hook reads this on every file an agent touches.

References (read 2026-11-24 to 2026-11-26): code.claude.com/docs/en/hooks, cursor.com/docs/hooks,
geminicli.com/docs/hooks, docs.github.com (Copilot CLI hooks), developers.openai.com/codex/hooks,
docs.cline.bot/features/hooks/hook-reference, VS Code's agent tools reference.
"""

from __future__ import annotations

READ = "read"  # names a file it reads
EDIT = "edit"  # names a file it creates or changes (apply_patch: in the patch body)
SEARCH = "search"  # a search or listing under a path
GLOB = "glob"  # its pattern is itself a path glob
SHELL = "shell"  # a command line, read for the files it names

TOOLS: dict[str, dict[str, tuple[str, ...]]] = {
    "claude-code": {
        READ: ("Read",),
        EDIT: ("Edit", "Write", "NotebookEdit"),
        SHELL: ("Bash", "PowerShell"),
        SEARCH: ("Grep",),
        GLOB: ("Glob",),
    },
    # Retired tools still found in older transcripts and sent by older versions.
    "claude-code (retired)": {EDIT: ("MultiEdit",)},
    "anthropic-api": {EDIT: ("str_replace_based_edit_tool",)},  # the API's text editor tool
    "copilot-cli": {READ: ("view",), EDIT: ("create", "str_replace_editor"), SHELL: ("bash",)},
    "cursor": {READ: ("Read",), EDIT: ("Write",), SEARCH: ("Grep",), SHELL: ("Shell",)},
    "gemini": {
        READ: ("read_file", "read_many_files"),
        EDIT: ("write_file", "replace"),
        GLOB: ("glob",),
        SEARCH: ("grep_search", "search_file_content", "list_directory"),
        SHELL: ("run_shell_command",),
    },
    "vscode": {
        READ: ("read_file",),
        EDIT: (
            "create_file",
            "replace_string_in_file",
            "multi_replace_string_in_file",
            "insert_edit_into_file",
            "editFiles",
        ),
        GLOB: ("file_search",),
        SEARCH: ("list_dir",),
    },
    "codex": {SHELL: ("Bash",), EDIT: ("apply_patch",)},
    "cline": {
        READ: ("read_file",),
        EDIT: ("write_to_file", "replace_in_file"),
        SEARCH: ("search_files", "list_files", "list_code_definition_names"),
        SHELL: ("execute_command",),
    },
}


def tools_of(agent: str, *kinds: str) -> tuple[str, ...]:
    """One agent's tools of these kinds (all kinds when none is named), in list order."""
    wanted = [names for kind, names in TOOLS[agent].items() if not kinds or kind in kinds]
    return tuple(tool for names in wanted for tool in names)


def every_tool(*kinds: str) -> frozenset[str]:
    """Every agent's tools of these kinds (all when none is named), lower-cased."""
    return frozenset(t.lower() for agent in TOOLS for t in tools_of(agent, *kinds))


def matcher(agent: str) -> str:
    """A hook matcher (an alternation) for every file tool of one agent."""
    return "|".join(tools_of(agent))
