"""Writes ``voicebench_rules.json``: the strings and rule order of VoiceBench's rule-based evaluators, read from
the official source files (not copied by hand), so that a re-extraction from a later commit is one command.

    python tasks/voicebench/official/extract_rules.py /path/to/VoiceBench-checkout COMMIT

Reads, from github.com/MatthewCYM/VoiceBench at COMMIT:
* ``src/evaluator/mcq.py``: ``MCQEvaluator.extract_answer``'s template list, in order, and its three closing
  special strings (each returning "A");
* ``src/evaluator/bbh.py``: each ``extract_answer_<task>`` if/elif chain as ``[test, argument, value]`` rules
  (test: ``equals``, ``contains``, ``startswith``, ``endswith``, ``search`` or ``yes_no``: the ``extract_answer_yn``
  chain first, its answer kept when it gives one);
* ``src/evaluator/harm.py``: ``HarmEvaluator``'s ``refusal_string`` list, as Python reads it (two adjacent string
  literals without a comma between them are one string there, and so here).
It refuses any construct it does not know, so that a changed evaluator is never read wrong.
"""

from __future__ import annotations

import ast
import hashlib
import json
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent / "voicebench_rules.json"


def _function(tree: ast.AST, name: str) -> ast.FunctionDef:
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return node
    raise SystemExit(f"no function {name}")


def _mcq(tree) -> dict:
    fn = _function(tree, "extract_answer")
    loops = [n for n in fn.body if isinstance(n, ast.For) and isinstance(n.iter, ast.List)]
    templates = [ast.literal_eval(e) for e in loops[0].iter.elts]
    specials = []
    for node in ast.walk(fn):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Compare) and isinstance(node.test.ops[0], ast.In):
            left = node.test.left
            if isinstance(left, ast.Constant) and isinstance(node.body[0], ast.Return):
                specials.append([left.value, ast.literal_eval(node.body[0].value)])
    return {"templates": templates, "closing_contains": specials}


def _test(test: ast.expr) -> list:
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        op, left, right = test.ops[0], test.left, test.comparators[0]
        if isinstance(op, ast.In) and isinstance(left, ast.Constant):
            return ["contains", left.value]
        if isinstance(op, ast.Eq) and isinstance(right, ast.Constant):
            return ["equals", right.value]
    if isinstance(test, ast.Call) and isinstance(test.func, ast.Attribute):
        name = test.func.attr
        if name in ("startswith", "endswith") and len(test.args) == 1:
            return [name, ast.literal_eval(test.args[0])]
        if name == "search" and len(test.args) == 2 and not test.keywords:
            return ["search", ast.literal_eval(test.args[0])]
    raise SystemExit(f"unknown test: {ast.unparse(test)}")


def _chain(fn: ast.FunctionDef) -> list:
    rules = []
    for stmt in fn.body:
        if isinstance(stmt, ast.Assign):  # tmp = self.extract_answer_yn(response)
            if "extract_answer_yn" not in ast.unparse(stmt.value):
                raise SystemExit(f"unknown statement: {ast.unparse(stmt)}")
            rules.append(["yes_no", None, None])
            continue
        node = stmt
        if ast.unparse(node.test) == "tmp is not None":  # if tmp is not None: return tmp
            continue
        while isinstance(node, ast.If):
            body = node.body
            if len(body) != 1 or not isinstance(body[0], ast.Return):
                raise SystemExit(f"unknown body: {ast.unparse(node)[:200]}")
            rules.append([*_test(node.test), ast.literal_eval(body[0].value)])
            rest = node.orelse
            node = rest[0] if len(rest) == 1 and isinstance(rest[0], ast.If) else None
            if node is None:
                tail = ast.unparse(ast.Module(body=rest, type_ignores=[]))
                if "random.choice([0, 1])" not in tail and tail.strip() != "return None":
                    raise SystemExit(f"unknown closing branch: {tail}")
    return rules


def _bbh(tree) -> dict:
    return {task: _chain(_function(tree, f"extract_answer_{task}"))
            for task in ("yn", "hyperbaton", "navigate", "lies", "sports")}


def _harm(tree) -> list:
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == "self.refusal_string" \
                and isinstance(node.value, ast.List):
            return [ast.literal_eval(e) for e in node.value.elts]
    raise SystemExit("no refusal_string list")


def main(checkout: str, commit: str) -> None:
    root = Path(checkout)
    sources = {name: (root / "src" / "evaluator" / f"{name}.py").read_bytes() for name in ("mcq", "bbh", "harm")}
    trees = {name: ast.parse(data.decode().replace("\r\n", "\n")) for name, data in sources.items()}
    rules = {
        "source": {"repository": "github.com/MatthewCYM/VoiceBench", "commit": commit,
                   "files": {f"src/evaluator/{n}.py": hashlib.sha256(d).hexdigest() for n, d in sources.items()}},
        "mcq": _mcq(trees["mcq"]),
        "bbh": _bbh(trees["bbh"]),
        "refusal_strings": _harm(trees["harm"]),
    }
    OUT.write_text(json.dumps(rules, ensure_ascii=False, indent=1) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main(*sys.argv[1:3])
