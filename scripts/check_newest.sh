#!/usr/bin/env bash
# The newest releases that setup.cfg's ranges allow, resolved now from PyPI into a scratch environment, through the
# README's test command: what a researcher who installs the plugin today beside the newest torch and transformers
# gets. Not part of .ci/run (it downloads and installs a second CUDA torch, about 3.5 GB, and runs the tests again:
# about 15 minutes here); .ci/newest runs it as a CI step of its own.
#   bash scripts/check_newest.sh
# It prints the releases it tested, those that differ from requirements/lock.txt, and the tests' result. It reads
# PyPI with pip's configuration files set aside (PIP_CONFIG_FILE=/dev/null), so that a machine-wide constraint
# (this kind of machine caps torch at the release it keeps on disk) does not hold the check back.
set -euo pipefail
cd "$(dirname "$0")/.."
UV="${UV:-.venv/bin/uv}"
[ -x "$UV" ] || { echo "check_newest: no uv at $UV: run bash scripts/setup.sh first (the lock extra installs it)" >&2; exit 2; }
SCRATCH="${LM_EVAL_AUDIO_NEWEST:-.newest}"
mkdir -p "$SCRATCH"
rm -rf "$SCRATCH/venv"
start=$(date +%s)
# The same Python and platform as the lock, the newest release of everything (pre-releases left out, as pip does).
"$UV" pip compile setup.cfg --all-extras --generate-hashes --python-version 3.11 --python-platform x86_64-manylinux_2_28 \
  --quiet --custom-compile-command "bash scripts/check_newest.sh" -o "$SCRATCH/lock.txt"
echo "check_newest: resolved $(date -u +%FT%TZ); newer than requirements/lock.txt:"
.venv/bin/python -m lm_eval_audio.testing.lock_files requirements/lock.txt "$SCRATCH/lock.txt"
PIP_CONFIG_FILE=/dev/null LM_EVAL_AUDIO_VENV="$SCRATCH/venv" LM_EVAL_AUDIO_LOCK="$SCRATCH/lock.txt" bash scripts/setup.sh
echo "check_newest: set up in $(( $(date +%s) - start )) s"
step=$(date +%s)
"$SCRATCH/venv/bin/python" -m pytest -q -m "not slow" -n auto
echo "check_newest: the README's test command passed on the newest releases in $(( $(date +%s) - step )) s:"
"$SCRATCH/venv/bin/python" -m lm_eval_audio.harness.install_check
