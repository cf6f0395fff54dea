"""A hostile org store: data only. Links, oversized files, YAML bombs and bad globs never
reach past the cache, never stall a read, and never stop the other learnings answering."""

from __future__ import annotations

import os
from pathlib import Path

from tests.features.org.conftest import Org
from tests.features.org.test_org_level import _ids


def _plant(org: Org, learning_id: str, text: str) -> None:
    folder = org.source / ".orbit" / "learnings" / learning_id
    folder.mkdir(parents=True)
    (folder / "learning.yaml").write_text(text)


RECORD = """id: {id}
schemaVersion: 1
status: active
created_at: 2026-05-09T18:00:00Z
updated_at: 2026-05-09T18:00:00Z
scope:
  paths: ['src/**']
summary: {summary}
"""


def test_links_in_the_org_store_are_never_followed_or_written(org: Org, tmp_path: Path) -> None:
    good = org.add("-s", "Use the money type for amounts", "-p", "src/**")
    secret = tmp_path / "secret.yaml"
    secret.write_text(RECORD.format(id="O-0002", summary="SECRET-CONTENT"))
    linked_file = org.source / ".orbit" / "learnings" / "O-0002"
    linked_file.mkdir()
    (linked_file / "learning.yaml").symlink_to(secret)
    (org.source / ".orbit" / "learnings" / "O-0003").symlink_to(tmp_path)  # a linked bundle
    org.publish()
    code, _, err = org.run(org.web, "org", "subscribe", str(org.remote))
    assert code == 0, err
    assert "O-0002/learning.yaml: a symbolic link" in err and "O-0003: a symbolic link" in err
    code, out, err = org.run(org.web, "learning", "list", "--path", "src/app.py")
    assert good in out and "SECRET" not in out + err
    for folder, _, names in os.walk(org.cache):
        for name in names:
            assert not os.path.islink(os.path.join(folder, name)), name
    assert secret.read_text().startswith("id: O-0002")  # untouched


def test_bombs_and_bad_globs_are_refused_with_a_message_and_the_rest_answers(org: Org) -> None:
    good = org.add("-s", "Use the money type for amounts", "-p", "src/**")
    big = RECORD.format(id="O-0002", summary="big") + "body: |\n" + "  x\n" * 600_000
    _plant(org, "O-0002", big)
    laughs = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + n)}: &{chr(98 + n)} [*{chr(97 + n)}, *{chr(97 + n)}, *{chr(97 + n)}]\n"
        for n in range(8)
    )
    _plant(org, "O-0003", RECORD.format(id="O-0003", summary="laughs") + laughs)
    bad_glob = RECORD.format(id="O-0004", summary="bad repos glob").replace(
        "scope:\n", "scope:\n  repos: ['payments-[']\n"
    )
    _plant(org, "O-0004", bad_glob)
    org.publish()
    code, _, err = org.run(org.web, "org", "subscribe", str(org.remote))
    assert code == 0, err
    assert "O-0002/learning.yaml: larger than 1048576 bytes" in err
    code, out, err = org.run(org.web, "learning", "list", "--path", "src/app.py")
    assert code == 0 and good in out
    assert "O-0003" in err and "alias" in err.lower()
    assert "O-0004" in err and "unclosed '['" in err
    assert _ids(org, org.web, "--path", "src/app.py") == [good]


def test_a_lock_that_is_not_a_pin_is_refused_and_reads_still_answer(org: Org) -> None:
    local = org.run(org.web, "learning", "add", "-s", "Local", "-p", "src/**")[1].strip()
    lock = org.web / ".orbit" / "org.lock"
    lock.write_text("url: x\nbranch: main\ncommit: ../../../../etc\n")
    code, out, err = org.run(org.web, "learning", "list", "--path", "src/app.py")
    assert code == 0 and local in out and "is not a full SHA" in err
    lock.unlink()
    lock.symlink_to("/etc/passwd")
    code, out, err = org.run(org.web, "learning", "list", "--path", "src/app.py")
    assert code == 0 and local in out and "leads outside" in err and "root:" not in out + err
    code, _, err = org.run(org.web, "org", "subscribe", "--", "--upload-pack=touch /tmp/x")
    assert code == 2 and "not a repository URL" in err
