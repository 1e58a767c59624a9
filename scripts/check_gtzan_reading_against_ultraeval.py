"""Check GTZAN's ``acc`` reading (``tasks/gtzan/scoring.prefix_match``), its question and its data source against
UltraEval-Audio's own code and registry, run from a checkout of OpenBMB/UltraEval-Audio:

    git clone https://github.com/OpenBMB/UltraEval-Audio /tmp/UltraEval-Audio      # read at 9b69da6
    .venv/bin/python scripts/check_gtzan_reading_against_ultraeval.py /tmp/UltraEval-Audio

Follows the registry from the GTZAN dataset to what scores it (``registry/dataset/GTZAN.yaml``: repository, split,
reference column, default task; ``registry/eval_task/music.yaml``: that task's prompt, evaluator and aggregation;
``registry/evaluator/common.yaml`` and ``registry/agg/naive.yaml``: their classes and arguments), renders the
prompt as ``audio_evals/prompt/base.py`` does, and runs ``audio_evals/evaluator/base.py`` (all of it) and the
``ACC`` aggregation of ``audio_evals/agg/base.py`` (its two classes and their imports, cut out: the module imports
the WER and caption libraries too; needs scikit-learn) on the edge-case answers below, each against ours, one by one and as one aggregate. Prints each
disagreement and exits 1 if there is one.
"""

from __future__ import annotations

import ast
import sys
import types
from pathlib import Path

import yaml

from lm_eval_audio.tasks.gtzan import data
from lm_eval_audio.tasks.gtzan.scoring import prefix_match

# (label as the data writes it, answer): GTZAN's genres, then labels no GTZAN copy is known to hold (a capital, a
# space: the evaluator's second branch), so that every line of the evaluator is run
PAIRS = [
    ("jazz", "jazz"), ("jazz", "Jazz"), ("jazz", " JAZZ.\n"), ("jazz", "jazz music"), ("jazz", "jazzy"),
    ("jazz", "The genre is jazz."), ("jazz", "jaz"), ("jazz", ""), ("jazz", "**Jazz**"), ("jazz", "'jazz'"),
    ("hiphop", "hip hop"), ("hiphop", "hip-hop"), ("hiphop", "Hiphop"), ("hiphop", "HipHop music"),
    ("pop", "popular"), ("pop", "K-pop"), ("rock", "rock and roll"), ("rock", "Rock."), ("rock", "rock\u00a0"),
    ("classical", "Classical music, piano"), ("country", "\u00a0country"), ("country", "\tcountry\n"),
    ("metal", "Heavy metal"), ("metal", "metal, rock"), ("disco", "disco/pop"), ("blues", "BLUES"),
    ("reggae", "Reggae"), ("reggae", "reggaeton"), ("blues", "rhythm and blues"), ("classical", "classic"),
    ("Jazz", "jazz"), (" reggae ", "reggae"), ("hip hop", "hiphop"), ("hip hop", "hip hop"), ("hip hop", "hip-hop"),
    ("hip hop", "HIPHOP!"), ("hip hop", "hiphop music"), ("hip hop", "hip"),
]


def _classes(path: Path, names: tuple[str, ...], imports: tuple[str, ...]) -> dict:
    """The named top-level classes of a module and its imports from the ``imports`` modules, cut out of its source
    and run (its other imports are not installed here)."""
    source = path.read_text()
    kept = [ast.get_source_segment(source, node) for node in ast.parse(source).body
            if (isinstance(node, ast.ClassDef) and node.name in names)
            or (isinstance(node, ast.ImportFrom) and node.module in imports)]
    namespace = {"__name__": path.stem}
    exec(compile("\n\n".join(kept), str(path), "exec"), namespace)
    return namespace


def _registry(checkout: Path) -> tuple[dict, dict, dict, dict]:
    def entry(file: str, name: str) -> dict:
        return yaml.safe_load((checkout / "registry" / file).read_text())[name]

    dataset = entry("dataset/GTZAN.yaml", "GTZAN")
    task = entry("eval_task/music.yaml", dataset["args"]["default_task"])
    return dataset, task, entry("evaluator/common.yaml", task["args"]["evaluator"]), entry(
        "agg/naive.yaml", task["args"]["agg"])


def _prompt(checkout: Path, name: str) -> str:
    """The text the task's prompt template renders to (its audio turn aside), as ``Prompt.load`` renders it."""
    stub = types.ModuleType("audio_evals.base")
    stub.PromptStruct = object
    sys.modules.setdefault("audio_evals", types.ModuleType("audio_evals"))
    sys.modules["audio_evals.base"] = stub
    namespace = {"__name__": "audio_evals.prompt.base"}
    exec(compile((checkout / "audio_evals/prompt/base.py").read_text(), "prompt/base.py", "exec"), namespace)
    template = yaml.safe_load((checkout / "registry/prompt/music.yaml").read_text())[name]["args"]["template"]
    turn = namespace["Prompt"](template).load(WavPath="clip.wav")
    return next(c["value"] for c in turn[0]["contents"] if c["type"] == "text")


def main(checkout: Path) -> int:
    wrong = 0
    dataset, task, evaluator_entry, agg_entry = _registry(checkout)
    args = dataset["args"]
    facts = [("dataset class", dataset["class"], "audio_evals.dataset.huggingface.Huggingface"),
             ("Hub repository", args["name"], data.SPEC.repo), ("split", args["split"], "test"),
             ("reference column", args["ref_col"], data.LABEL), ("evaluator class", evaluator_entry["class"],
             "audio_evals.evaluator.base.PrefixMatch"), ("evaluator args", evaluator_entry["args"], {}),
             ("aggregation class", agg_entry["class"], "audio_evals.agg.base.ACC"),
             ("post-processing", task["args"].get("post_process", []), []),
             ("question", _prompt(checkout, task["args"]["prompt"]), data.PROMPT)]
    for what, theirs, ours in facts:
        if theirs != ours:
            wrong += 1
            print(f"{what}: theirs {theirs!r}, ours {ours!r}")
    if "test" not in data.SHARDS:
        wrong += 1
        print(f"shards {data.SHARDS!r} are not the test split's")

    evaluators = {"__name__": "audio_evals.evaluator.base"}
    exec(compile((checkout / "audio_evals/evaluator/base.py").read_text(), "evaluator/base.py", "exec"), evaluators)
    evaluator = evaluators["PrefixMatch"](**evaluator_entry["args"])
    aggregations = _classes(checkout / "audio_evals/agg/base.py", ("AggPolicy", "ACC"),
                            ("abc", "typing", "sklearn.metrics"))
    accuracy = aggregations["ACC"](**agg_entry["args"])
    scores, ours_all = [], []
    for label, answer in PAIRS:
        score = evaluator(answer, label)
        ours = prefix_match(answer, label)
        theirs_one = accuracy([score])["acc(%)"] / 100
        if bool(score["match"]) != ours or theirs_one != float(ours):
            wrong += 1
            print(f"prefix-match {label!r} / {answer!r}: theirs match {score['match']} acc {theirs_one}, ours {ours}")
        scores.append(score)
        ours_all.append(float(ours))
    theirs_acc, ours_acc = accuracy(scores)["acc(%)"] / 100, sum(ours_all) / len(ours_all)
    if abs(theirs_acc - ours_acc) > 1e-12:
        wrong += 1
        print(f"acc over the {len(PAIRS)} pairs: theirs {theirs_acc}, ours {ours_acc}")
    print(f"{len(facts) + 1} registry facts and {len(PAIRS)} answers (acc theirs {theirs_acc:.4f}, ours "
          f"{ours_acc:.4f}): {wrong} disagreement(s)")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1])))
