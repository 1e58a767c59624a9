"""MMAU test-mini from its authors' Hub repository, made into the layout ``evaluation.py`` reads.

The authors publish test-mini in two places (Sakshi113/MMAU README, "test-mini" link): the questions as
``mmau-test-mini.json`` on GitHub, and the questions with their clips on the Hub, ``gamma-lab-umd/MMAU-test-mini``,
as parquet rows ``instruction, choices, answer, other_attributes, context``: ``other_attributes`` a JSON string
holding ``id, dataset, task, split, category, sub-category, difficulty``, ``context`` the encoded clip
(``{bytes, path}``), and each choice and the answer lettered ("(A) Man"), which the JSON does not do. (That
layout is as the scripts that load the repository read it, e.g. its ``load_dataset(..., split="test")`` users;
the Hub itself could not be reached where this was written: a file without ``other_attributes`` and ``context``
stops the run in one line, and rows that say something else are counted, as below.)

What is scored is the JSON, as ``evaluation.py`` scores it: its copy from GitHub is bundled here
(``official/mmau-test-mini.json``, Apache-2.0, commit below). From the Hub come the clips: each row's bytes,
written as they are to the path its JSON item names (``./test-mini-audios/<id>.wav``), once, beside the cache.
Each row's text is compared with its JSON item (the letters taken off): rows that differ, items without a row
and rows without an item are recorded in the results (``lm_eval_audio_data.sources``) and in
``hub_check.json`` in the made folder, and warned of; an item without a clip is scored wrong and counted
(``audio_missing``), as a missing clip is in any layout.
"""

from __future__ import annotations

import json
import logging
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from lm_eval_audio.benchmarks.hub_data import HubDataError, Snapshot
from lm_eval_audio.storage import run_state
from lm_eval_audio.storage.data_paths import leaves_folder
from lm_eval_audio.storage.digests import file_sha256

log = logging.getLogger("lm_eval.audio.data")

METADATA = Path(__file__).resolve().parent / "official" / "mmau-test-mini.json"
# github.com/Sakshi113/MMAU: the commit the bundled copy was taken at, and the last that changed the file
METADATA_COMMIT = "110127f54c0dfba3faa5ec9feee4a7e4148679c5"
METADATA_CHANGED_IN = "f0a4a97d2b562f8c96aaa3dde4c292a8f783b304"
CHECK_FILE = "hub_check.json"
_VERSION = "mmau-hub-audio-1"  # of how the folder is made: another version makes it again
_ATTRIBUTES = ("dataset", "task", "split", "category", "sub-category", "difficulty")
_LETTER = re.compile(r"^\([A-Z]\) ?")  # "(A) Man" on the Hub is "Man" in the JSON


def _unlettered(text) -> str:
    return _LETTER.sub("", str(text), count=1)


def metadata_sha256() -> str:
    return file_sha256(METADATA)


def _differences(item: dict, row: dict, attributes: dict) -> list[str]:
    """The fields in which a Hub row says something else than its JSON item."""
    fields = []
    if row.get("instruction") != item["question"]:
        fields.append("question")
    if [_unlettered(c) for c in row.get("choices") or []] != item["choices"]:
        fields.append("choices")
    if _unlettered(row.get("answer") or "") != item["answer"]:
        fields.append("answer")
    fields += [k for k in _ATTRIBUTES if attributes.get(k) != item.get(k)]
    return fields


def _attributes(value, where: str) -> dict:
    if isinstance(value, dict):
        return value
    try:
        parsed = json.loads(value) if isinstance(value, str) else None
    except json.JSONDecodeError:
        parsed = None
    if not isinstance(parsed, dict):
        raise HubDataError(f"{where}: other_attributes is not a JSON object ({str(value)[:80]!r}): the file is not "
                           "MMAU-test-mini's published layout; set MMAU_DATA_DIR to the official files instead")
    return parsed


def write_layout(parquets: list[Path], folder: Path) -> None:
    """Fill ``folder`` with the official layout: the bundled JSON, and each item's clip from its Hub row."""
    import pyarrow.parquet as pq

    shutil.copyfile(METADATA, folder / METADATA.name)
    items = {item["id"]: item for item in json.loads(METADATA.read_text())}
    seen: set[str] = set()
    check = {"metadata_items": len(items), "hub_rows": 0, "clips_written": 0, "differing": {},
             "items_without_a_row": [], "rows_without_an_item": [], "repeated_rows": [], "rows_without_audio": []}
    for path in parquets:
        table = pq.ParquetFile(path)
        names = table.schema_arrow.names
        if "other_attributes" not in names or "context" not in names:
            raise HubDataError(f"{path.name}: no other_attributes or context column (it has {', '.join(names)}): "
                               "not MMAU-test-mini's published layout; set MMAU_DATA_DIR to the official files instead")
        columns = [c for c in ("instruction", "choices", "answer", "other_attributes", "context") if c in names]
        for batch in table.iter_batches(batch_size=16, columns=columns):
            for row in batch.to_pylist():
                check["hub_rows"] += 1
                attributes = _attributes(row["other_attributes"], f"{path.name} row {check['hub_rows'] - 1}")
                uid = str(attributes.get("id"))
                item = items.get(uid)
                if item is None:
                    check["rows_without_an_item"].append(uid)
                    continue
                if uid in seen:
                    check["repeated_rows"].append(uid)
                    continue
                seen.add(uid)
                differing = _differences(item, row, attributes)
                if differing:
                    check["differing"][uid] = differing
                context = row.get("context")
                clip = context.get("bytes") if isinstance(context, dict) else context
                if not isinstance(clip, bytes) or not clip or leaves_folder(item["audio_id"]):
                    check["rows_without_audio"].append(uid)
                    continue
                target = folder / item["audio_id"]
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(clip)
                check["clips_written"] += 1
    check["items_without_a_row"] = [uid for uid in items if uid not in seen]
    if not check["clips_written"]:  # every item would be scored wrong: not a run worth making
        raise HubDataError(f"{', '.join(p.name for p in parquets)}: none of its {check['hub_rows']} row(s) gives a clip "
                           f"for an item of the official {METADATA.name} (ids such as "
                           f"{check['rows_without_an_item'][:2] or check['rows_without_audio'][:2]}): not MMAU-test-mini "
                           "as published; set MMAU_DATA_DIR to the official files instead")
    (folder / "test-mini-audios").mkdir(exist_ok=True)
    (folder / CHECK_FILE).write_text(json.dumps(check, indent=1))


# What a Hub row can do otherwise than its JSON item; the first four change what the run has to score with
_PROBLEMS = ("differing", "items_without_a_row", "repeated_rows", "rows_without_audio")
_KINDS = (*_PROBLEMS[:2], "rows_without_an_item", *_PROBLEMS[2:])


def _summary(check: dict) -> dict:
    """What the results record of the comparison: counts, and the first ids of each kind."""
    out = {k: check[k] for k in ("metadata_items", "hub_rows", "clips_written")}
    for key in _KINDS:
        ids = list(check[key])
        out[key] = len(ids)
        if ids:
            out[f"{key}_first"] = ids[:10]
    return out


def _warn_once(check_file: str, name: str, label: str, problems: tuple) -> None:
    """Once per run (each task of a group reads the folder): the run's own record of what it said."""
    if not run_state.current().first_time(("mmau test-mini differences", check_file, problems)):
        return
    counts = dict(problems)
    log.warning("%s: %s differs from the official mmau-test-mini.json: %d row(s) with other text, %d item(s) with no "
                "row, %d repeated row(s), %d row(s) without audio (the items are scored from the JSON; an item "
                "without a clip is scored wrong and counted in audio_missing); the ids are in %s", name, label,
                *(counts.get(k, 0) for k in _PROBLEMS), check_file)


@dataclass(frozen=True)
class ParquetClips:
    """MMAU test-mini's Hub repository as a source of clips for the bundled official JSON."""

    repo_id: str = "gamma-lab-umd/MMAU-test-mini"

    def folder(self, snapshot: Snapshot, layout) -> tuple[Path, dict, tuple[str, ...]]:
        parquets = [f.path for f in snapshot.matching("*.parquet")]
        if not parquets:
            raise HubDataError(f"{layout.name}: {snapshot.label} lists no parquet file (it lists "
                               f"{', '.join(sorted(snapshot.files)[:5]) or 'nothing'}): not the layout this plugin "
                               "reads. " + layout.help())
        digest = metadata_sha256()
        folder = snapshot.built(parquets, write_layout, "test-mini-audios", layout.name,
                                doing=f"writing the clips of {', '.join(parquets)}", version=f"{_VERSION} {digest}")
        check = _summary(json.loads((folder / CHECK_FILE).read_text()))
        problems = {k: check[k] for k in _PROBLEMS if check[k]}
        if problems:
            _warn_once(str(folder / CHECK_FILE), layout.name, snapshot.label, tuple(problems.items()))
        details = {
            "metadata": {"file": METADATA.name, "from": "github.com/Sakshi113/MMAU", "commit": METADATA_COMMIT,
                         "last_changed_in": METADATA_CHANGED_IN, "sha256": digest, "bundled": True},
            "audio": "each row's context bytes, written to the path its item's audio_id names",
            "hub_rows_against_metadata": check,
            "differences_from_metadata": problems,  # what report prints beside the source
        }
        return folder, details, tuple(parquets)
