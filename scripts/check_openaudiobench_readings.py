"""Check OpenAudioBench's judge prompts and reply readings (``lm_eval_audio.tasks.openaudiobench``) against the Hub's
eval scripts as VoiceAgentGroup/AudioCompass copies them (``src/benchmarks/openaudiobench/evaluator/*.py``), run
from a checkout of it:

    git clone https://github.com/VoiceAgentGroup/AudioCompass /tmp/AudioCompass
    git -C /tmp/AudioCompass checkout bafbcb0      # later commits re-wire the judge; the readings are bafbcb0's
    .venv/bin/python scripts/check_openaudiobench_readings.py /tmp/AudioCompass

No API is called: each evaluator's ``build_eval_messages`` (the prompt f-string, filled with the placeholders of
``judges.PROMPTS`` through the columns ``data.COLUMNS`` names), ``get_eval_score`` / ``check_eval_response_format``
and the reading loop of ``evaluate`` are taken out of the file (ast) and run alone, on the judge replies of
``tests/test_openaudiobench.py``'s EDGE_CASES (the Hub scripts ``eval()`` TriviaQA's and Web Questions' replies:
only those fixed test strings are given to them). The system message is ai_judge.py's.

Each reply gets the Hub script's outcome (a verdict; "unread" where it scores the reply wrong, or -1, or leaves it
out; "stops" where an assert ends the run) beside this plugin's (the verdict, or "unread"), as each enters the
score. Prints every case and exits 1 on a disagreement that is not a documented deviation: the Hub script stops
(here the reply is unread), Reasoning QA's -1 (here left out), or only ``eval`` reads the reply (never run here).
"""

from __future__ import annotations

import ast
import re
import sys
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EVALUATORS = {"alpaca_eval": ("alpaca.py", "AlpacaEvaluator"),
              "llama_questions": ("llama_qst.py", "LlamaQuestionsEvaluator"),
              "reasoning_qa": ("reasoning.py", "ReasoningQAEvaluator"),
              "trivia_qa": ("trivia_qa.py", "TriviaQAEvaluator"),
              "web_questions": ("web_qst.py", "WebQuestionsEvaluator")}
STOPS, UNREAD = "stops", "unread"


def edge_cases() -> list[tuple[str, str, object]]:
    """EDGE_CASES of tests/test_openaudiobench.py, read as a literal (the module imports pytest and the plugin)."""
    tree = ast.parse((ROOT / "tests" / "test_openaudiobench.py").read_text(encoding="utf-8"))
    node = next(n for n in tree.body if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", "") == "EDGE_CASES")
    return ast.literal_eval(node.value)


class Official:
    """One evaluator class of the checkout: its methods, and the loop of its ``evaluate`` that reads the replies."""

    def __init__(self, path: Path, class_name: str):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == class_name)
        methods = [n for n in cls.body if isinstance(n, ast.FunctionDef)
                   and n.name in ("build_eval_messages", "get_eval_score", "check_eval_response_format")]
        evaluate = next(n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "evaluate")
        loops = [n for n in evaluate.body  # for item in judged_data: ... (not the prompts' loop before it)
                 if isinstance(n, ast.For) and getattr(n.iter, "id", "") == "judged_data"]
        if not loops:
            raise SystemExit(f"{path}: {class_name}.evaluate has no `for item in judged_data` loop: not bafbcb0's "
                             "evaluator (later commits re-wire it); check out bafbcb0")
        self.loop = loops[0]
        self.namespace = {"re": re, "traceback": traceback}
        module = ast.Module(body=[ast.ClassDef(name="C", bases=[], keywords=[], body=methods, decorator_list=[])],
                            type_ignores=[])
        exec(compile(ast.fix_missing_locations(module), str(path), "exec"), self.namespace)
        self.instance = self.namespace["C"]()
        self.path = path

    def prompt(self, columns: tuple[str, str]) -> str:
        data = {columns[0]: "{question}", columns[1]: "{answer}", "infer_response": "{prediction}"}
        content = self.instance.build_eval_messages(data)[-1]["content"]
        return content if isinstance(content, str) else content[0]["text"]

    def run_loop(self, reply: str, **state) -> dict:
        """The ``evaluate`` loop over the one reply; its variables afterwards."""
        scope = dict(self.namespace, self=self.instance, judged_data=[reply], **state)
        loop = ast.Module(body=[self.loop], type_ignores=[])
        exec(compile(ast.fix_missing_locations(loop), str(self.path), "exec"), scope)
        return scope


def official_outcome(subset: str, ev: Official, reply: str):
    import contextlib
    import io

    reply = reply.strip()  # ai_judge.py's generate returns the reply stripped
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        try:
            if subset == "alpaca_eval":
                score = ev.instance.get_eval_score(reply)
                return score if score else UNREAD  # evaluate: `if score: scores.append(score)`
            if subset == "llama_questions":
                return ev.run_loop(reply, correct_count=0)["correct_count"] == 1
            if subset == "reasoning_qa":
                score = ev.run_loop(reply, scores=[])["scores"][0]
                return UNREAD if score == -1 else score
            item = reply if subset == "trivia_qa" else {"eval_response": reply}
            judged = ev.instance.check_eval_response_format(item)
            return UNREAD if judged["judgment"] == "" else judged["judgment"] == "correct"
        except AssertionError:
            return STOPS


def only_eval_reads(reply: str) -> bool:
    """Whether the Hub scripts' TriviaQA reading reads the reply only through ``eval`` (a literal would not)."""
    for text in (reply[7:-3], reply):
        try:
            ast.literal_eval(text)
            return False
        except Exception:
            try:
                eval(text, {})  # a fixed test string (EDGE_CASES)
                return True
            except Exception:
                continue
    return False


def main(argv: list[str]) -> int:
    folder = Path(argv[0]) / "src" / "benchmarks" / "openaudiobench" / "evaluator" if len(argv) == 1 else None
    if folder is None or not (folder / "trivia_qa.py").is_file():
        print(__doc__)
        return 2
    from lm_eval_audio.tasks.openaudiobench import data, judges, scoring

    problems = []
    official = {subset: Official(folder / name, cls) for subset, (name, cls) in EVALUATORS.items()}
    for subset, ev in official.items():
        try:
            same = ev.prompt(data.COLUMNS[subset]) == judges.PROMPTS[subset]
            why = "differs from judges.PROMPTS"
        except KeyError as e:
            same, why = False, f"reads the column {e}, which data.COLUMNS[{subset!r}] does not name"
        print(f"prompt {subset}: {'identical' if same else 'DIFFERS: ' + why}")
        if not same:
            problems.append(f"prompt {subset}: {why}")
    system = re.search(r'"role": "system",\s*"content": "([^"]*)"', (folder / "ai_judge.py").read_text())
    print(f"system message: {'identical' if system and system.group(1) == judges.SYSTEM else 'DIFFERS'}")
    if not system or system.group(1) != judges.SYSTEM:
        problems.append("system message differs from judges.SYSTEM")

    for subset, reply, _ in edge_cases():
        theirs = official_outcome(subset, official[subset], reply)
        verdict = judges.READERS[subset](reply)
        ours = scoring.scored_verdict(subset, verdict, bool(reply.strip()))
        ours = UNREAD if ours is None else ours
        if subset in scoring.UNREAD_IS_WRONG and theirs == UNREAD and ours == UNREAD:
            kind = "deviation (an empty reply is no reply here: left out; the Hub script counts it wrong)"
        elif theirs == ours or (ours is False and theirs == UNREAD and subset in scoring.UNREAD_IS_WRONG):
            kind = "same"
        elif theirs == STOPS:
            kind = "deviation (an assert stops the Hub script)"
        elif subset == "reasoning_qa" and theirs == UNREAD and ours == UNREAD:
            kind = "same"
        elif subset in scoring.UNREAD_IS_WRONG and ours is False and verdict is None and only_eval_reads(reply.strip()):
            kind = "deviation (only eval() reads it; here unread, counted wrong)"
        else:
            kind = "DISAGREE"
            problems.append(f"{subset} {reply!r}: Hub script {theirs!r}, here {ours!r}")
        minus_one = subset == "reasoning_qa" and theirs == UNREAD
        note = " (Reasoning QA: -1 in the Hub script, left out here)" if minus_one else ""
        if verdict is None:
            note += " (unread here: in judge_failures" + (", counted wrong)" if ours is False else ", left out)")
        print(f"{kind}: {subset} {reply!r}: Hub script {theirs!r}, here {ours!r}{note}")
    for line in problems:
        print("problem:", line)
    print(f"{len(edge_cases())} replies, 5 prompts: {len(problems)} disagreement(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
