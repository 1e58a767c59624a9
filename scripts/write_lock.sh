#!/usr/bin/env bash
# Writes the lock scripts/setup.sh installs from, on purpose and only here: a release published after the lock's
# date changes nothing the set-up installs until this is run again.
#   bash scripts/write_lock.sh [YYYY-MM-DD]     # the newest date a release may carry (default: today, UTC)
#
# requirements/lock.txt: every package of the project with all its extras, for CPython 3.11 on x86-64 Linux (what
# CI runs), each release with the hashes of its files. The project's direct requirements are resolved to their
# lower bounds in setup.cfg (uv's lowest-direct), so a lower bound is always a release CI has tested; what they
# pull in is the newest release up to the date. To move a dependency forward, raise its lower bound in setup.cfg
# and run this again (tests/test_lock.py fails while the two disagree).
# requirements/build.txt: pip, setuptools and wheel, installed first (setuptools as the lock holds it).
# requirements/no-deps.txt: what setup installs without its dependencies; data-wheels.txt: the wheels it only
# downloads, for a data file each.
#
# uv writes it (the `lock` extra): it resolves for a named Python and platform without installing anything and
# without reading this machine's pip configuration, writes the hash of every file of each release, and its output
# is a plain requirements file that pip installs in hash-checking mode, so setup itself needs no uv.
set -euo pipefail
cd "$(dirname "$0")/.."
UV="${UV:-.venv/bin/uv}"
[ -x "$UV" ] || command -v "$UV" >/dev/null || { echo "write_lock: no uv at $UV: run bash scripts/setup.sh first, or set UV=/path/to/uv" >&2; exit 2; }
DATE="${1:-$(date -u +%F)}"
# uv's --exclude-newer takes a time: the end of that day, UTC
UNTIL="$(date -u -d "$DATE + 1 day" +%FT00:00:00Z)"
common=(--python-version 3.11 --python-platform x86_64-manylinux_2_28 --generate-hashes --exclude-newer "$UNTIL"
        --custom-compile-command "bash scripts/write_lock.sh $DATE" --quiet)
"$UV" pip compile setup.cfg --all-extras --resolution lowest-direct "${common[@]}" -o requirements/lock.txt
"$UV" pip compile requirements/build.in -c requirements/lock.txt "${common[@]}" -o requirements/build.txt
for name in no-deps data-wheels; do
  "$UV" pip compile "requirements/$name.in" --no-deps "${common[@]}" -o "requirements/$name.txt"
done
echo "write_lock: requirements/lock.txt, build.txt, no-deps.txt and data-wheels.txt written for releases up to $DATE"
