"""WordNet 3.0 for METEOR's synonym stage, offline.

nltk downloads WordNet from the network; this machine (and CI) has none. Debian's
``wordnet-base`` and ``wordnet-sense-index`` packages hold the same Princeton WordNet 3.0 database in
``/usr/share/wordnet`` but lacks the ``lexnames`` file that nltk's reader opens, and
nltk only reads corpora below its own data path. ``install()`` therefore builds
``<venv>/nltk_data/corpora/wordnet`` (a folder nltk searches by default): the database
files copied, and ``lexnames`` written from WordNet 3.0's table of its 45 lexicographer
files (``LEXICOGRAPHER_FILES``, as listed in the ``lexnames(5WN)`` manual page; kept here
because slim images drop manual pages, and checked against the page where it exists).

    python -m lm_eval_audio.storage.wordnet_data            # run by scripts/setup.sh

METEOR never runs without WordNet: ``reader()`` raises with these instructions.
"""

from __future__ import annotations

import gzip
import re
import shutil
import sys
from pathlib import Path

DEBIAN_DIR = Path("/usr/share/wordnet")
DEBIAN_LEXNAMES_MAN = Path("/usr/share/man/man5/lexnames.5WN.gz")
# lexnames(5WN), WordNet 3.0: file number = position
LEXICOGRAPHER_FILES = (
    "adj.all", "adj.pert", "adv.all", "noun.Tops", "noun.act", "noun.animal", "noun.artifact",
    "noun.attribute", "noun.body", "noun.cognition", "noun.communication", "noun.event", "noun.feeling",
    "noun.food", "noun.group", "noun.location", "noun.motive", "noun.object", "noun.person",
    "noun.phenomenon", "noun.plant", "noun.possession", "noun.process", "noun.quantity", "noun.relation",
    "noun.shape", "noun.state", "noun.substance", "noun.time", "verb.body", "verb.change",
    "verb.cognition", "verb.communication", "verb.competition", "verb.consumption", "verb.contact",
    "verb.creation", "verb.emotion", "verb.motion", "verb.perception", "verb.possession", "verb.social",
    "verb.stative", "verb.weather", "adj.ppl",
)
DATABASE_FILES = (
    "adj.exc", "adv.exc", "noun.exc", "verb.exc", "cntlist.rev",
    "data.adj", "data.adv", "data.noun", "data.verb",
    "index.adj", "index.adv", "index.noun", "index.verb",
    "index.sense",  # from wordnet-sense-index: nltk maps synsets through it when it loads
)
_CATEGORY = {"adj": 3, "adv": 4, "noun": 1, "verb": 2}  # lexnames(5WN): "Syntactic Category"

HOW_TO_INSTALL = (
    "install Debian's WordNet (apt-get install wordnet-base wordnet-sense-index), then run "
    "`python -m lm_eval_audio.storage.wordnet_data` (scripts/setup.sh does both); "
    "or put nltk's own WordNet at <nltk_data>/corpora/wordnet"
)


class WordNetMissing(RuntimeError):
    """METEOR needs WordNet and none is installed; the message says how to install it."""


def default_target() -> Path:
    return Path(sys.prefix) / "nltk_data" / "corpora" / "wordnet"


def lexnames() -> str:
    """The ``lexnames`` file: number, file name, syntactic category; tab separated."""
    return "".join(f"{i:02d}\t{name}\t{_CATEGORY[name.split('.')[0]]}\n" for i, name in enumerate(LEXICOGRAPHER_FILES))


def lexnames_from_manual(man_page: Path = DEBIAN_LEXNAMES_MAN) -> str:
    """The same file built from the table in Debian's manual page (the check for ``lexnames``)."""
    text = gzip.decompress(man_page.read_bytes()).decode("utf-8", errors="replace")
    rows = re.findall(r"^(\d\d)\t((adj|adv|noun|verb)\.[A-Za-z]+)\s*\t", text, flags=re.M)
    return "".join(f"{number}\t{name}\t{_CATEGORY[pos]}\n" for number, name, pos in rows)


def install(target: Path | None = None, source: Path = DEBIAN_DIR) -> Path:
    target = Path(target or default_target())
    missing = [name for name in DATABASE_FILES if not (source / name).is_file()]
    if missing:
        raise WordNetMissing(f"{source} is not a complete WordNet 3.0 database (missing {', '.join(missing)}); "
                             + HOW_TO_INSTALL)
    target.mkdir(parents=True, exist_ok=True)
    for name in DATABASE_FILES:
        shutil.copyfile(source / name, target / name)
    (target / "lexnames").write_text(lexnames(), encoding="utf-8")
    return target


def reader():
    """nltk's WordNet reader, loaded; raises ``WordNetMissing`` when it is not installed."""
    from nltk.corpus import wordnet

    try:
        wordnet.ensure_loaded()
    except LookupError:
        raise WordNetMissing("METEOR needs WordNet for its synonym stage and nltk finds none: " + HOW_TO_INSTALL) from None
    return wordnet


if __name__ == "__main__":
    path = install(Path(sys.argv[1]) if len(sys.argv) > 1 else None)
    from nltk.corpus import wordnet

    print(f"WordNet {wordnet.get_version()} for nltk installed at {path}")
