#!/usr/bin/env python3
"""Sanity checks for the relevance-heldout evaluation set (standard library + a YAML loader)."""
import collections
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def load(name):
    path = os.path.join(HERE, name)
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    try:
        from ruamel.yaml import YAML
        return YAML(typ="safe").load(text)
    except ImportError:
        import yaml
        return yaml.safe_load(text)


errors = []


def err(msg):
    errors.append(msg)


learnings = load("learnings.yaml")
queries = load("queries.yaml")
tasks = load("tasks.yaml")
for name, doc in (("learnings", learnings), ("queries", queries), ("tasks", tasks)):
    if not isinstance(doc, list):
        err(f"{name}.yaml: top level is not a list")

# ---- learnings
keys = [l.get("key") for l in learnings]
dups = [k for k, n in collections.Counter(keys).items() if n > 1]
if dups:
    err(f"duplicate learning keys: {dups}")
keyset = set(keys)
kebab = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
for l in learnings:
    k = l.get("key")
    if not k or not kebab.match(k):
        err(f"learning key not kebab-case: {k!r}")
    s = l.get("summary", "")
    if not s or len(s) > 140:
        err(f"{k}: summary length {len(s)} (must be 1..140)")
    body_lines = [x for x in str(l.get("body", "")).splitlines() if x.strip()]
    if not 3 <= len(body_lines) <= 6:
        err(f"{k}: body has {len(body_lines)} lines (want 3-6)")
    if not isinstance(l.get("paths"), list):
        err(f"{k}: paths is not a list")
    if not isinstance(l.get("tags"), list) or not l.get("tags"):
        err(f"{k}: tags missing")
    if not l.get("paths") and not l.get("tags"):
        err(f"{k}: no scope")
    v = l.get("votes")
    if not isinstance(v, int) or not 0 <= v <= 9:
        err(f"{k}: votes {v!r} out of 0..9")
    a = l.get("age_days")
    if not isinstance(a, int) or not 1 <= a <= 700:
        err(f"{k}: age_days {a!r} out of 1..700")
    extra = set(l) - {"key", "summary", "body", "paths", "tags", "votes", "age_days", "group"}
    if extra:
        err(f"{k}: unknown fields {sorted(extra)}")
groups = collections.Counter(l["group"] for l in learnings if l.get("group"))
for g, n in groups.items():
    if not 2 <= n <= 3:
        err(f"group {g} has {n} members (want 2-3)")

# ---- queries
kinds = collections.Counter()
for i, q in enumerate(queries):
    kind = q.get("kind")
    kinds[kind] += 1
    exp = q.get("expected")
    if not isinstance(exp, list):
        err(f"query {i}: expected is not a list")
        continue
    if not str(q.get("text", "")).strip():
        err(f"query {i}: empty text")
    if kind == "noanswer" and exp:
        err(f"query {i} ({q['text'][:40]!r}): noanswer with expected {exp}")
    if kind != "noanswer" and not exp:
        err(f"query {i} ({q['text'][:40]!r}): kind {kind} with empty expected")
    for k in exp:
        if k not in keyset:
            err(f"query {i}: unknown key {k}")
    if len(set(exp)) != len(exp):
        err(f"query {i}: repeated key in expected")
    if kind == "long":
        n = len(str(q["text"]).split())
        if not 40 <= n <= 80:
            err(f"query {i}: long query has {n} words")
texts = collections.Counter(str(q.get("text")).strip().lower() for q in queries)
for t, n in texts.items():
    if n > 1:
        err(f"duplicate query text: {t[:60]!r}")
want = {"paraphrase": 60, "symptom": 45, "noanswer": 35, "error": 30, "identifier": 25,
        "typo": 15, "oneword": 15, "long": 12, "acronym": 13}
for k, n in want.items():
    if kinds.get(k, 0) != n:
        err(f"kind {k}: {kinds.get(k, 0)} queries, want {n}")
for k in kinds:
    if k not in want:
        err(f"unknown kind {k}")

# ---- tasks
for i, t in enumerate(tasks):
    must, acc = t.get("must") or [], t.get("acceptable") or []
    if not 1 <= len(must) <= 3:
        err(f"task {i} ({t.get('title')}): {len(must)} must keys (want 1-3)")
    for k in must + acc:
        if k not in keyset:
            err(f"task {i}: unknown key {k}")
    both = set(must) & set(acc)
    if both:
        err(f"task {i} ({t.get('title')}): keys both must and acceptable: {sorted(both)}")
    for f in ("title", "description", "context_files", "tags"):
        if f not in t:
            err(f"task {i}: missing {f}")

# ---- report
referenced = set()
for q in queries:
    referenced.update(q["expected"])
for t in tasks:
    referenced.update(t["must"])
    referenced.update(t.get("acceptable") or [])
tag_only = sum(1 for l in learnings if not l["paths"])
exact = sum(1 for l in learnings if len(l["paths"]) == 1 and not re.search(r"[*?\[]", l["paths"][0]))
multi = sum(1 for l in learnings if len(l["paths"]) > 1)
popular = sum(1 for l in learnings if l["votes"] >= 6)
print(f"learnings: {len(learnings)} (tag-only {tag_only}, one exact file {exact}, several globs {multi}, "
      f"votes>=6 {popular}, groups {len(groups)} covering {sum(groups.values())})")
print(f"queries: {len(queries)} " + ", ".join(f"{k}={kinds[k]}" for k in want))
print(f"tasks: {len(tasks)} (with tags {sum(1 for t in tasks if t['tags'])}, "
      f"multi-file {sum(1 for t in tasks if len(t['context_files']) > 1)})")
print(f"learnings referenced by some query or task: {len(referenced & keyset)}/{len(keyset)}")
if errors:
    print(f"FAILED: {len(errors)} problem(s)")
    for e in errors:
        print("  -", e)
    sys.exit(1)
print("OK: all checks passed")
