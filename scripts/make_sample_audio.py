"""Synthesize the committed sample audio with espeak-ng and sox (run once; outputs are committed).

    apt-get install espeak-ng sox && .venv/bin/python scripts/make_sample_audio.py

Writes
* tasks/spoken_digits/audio/<word>.flac and tasks/spoken_digits/spoken_digits.jsonl
  (the plugin's own smoke-test tasks), and
* examples/spoken_qa/audio/*.wav and examples/spoken_qa/spoken_qa.jsonl
  (docs/TASKS.md's "Add a task as one YAML file" example).
All clips are 16 kHz mono 16-bit; espeak-ng's voice, speed and pitch are fixed, so a
re-run gives the same words (byte-identity also depends on the espeak-ng build).
"""

import json
import subprocess
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DIGITS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
SPOKEN_QA = [
    ("The sky was grey and the rain fell all day.", "What was the weather like?", "rain"),
    ("My sister keeps a small black cat called Pepper.", "What animal does the sister keep?", "cat"),
    ("We took the train to Berlin on Monday morning.", "Which city did they travel to?", "Berlin"),
    ("He ordered a cup of green tea and a lemon cake.", "What drink did he order?", "tea"),
    ("The meeting starts at nine o'clock sharp.", "At what hour does the meeting start?", "nine"),
    ("Please close the red door when you leave.", "What color is the door?", "red"),
]


def speak(text: str, out: Path) -> None:
    with tempfile.NamedTemporaryFile(suffix=".wav") as raw:
        subprocess.run(["espeak-ng", "-v", "en-us", "-s", "150", "-p", "50", "-w", raw.name, text], check=True)
        subprocess.run(["sox", raw.name, "-r", "16000", "-c", "1", "-b", "16", str(out)], check=True)


def main() -> None:
    digits = ROOT / "tasks" / "spoken_digits"
    (digits / "audio").mkdir(parents=True, exist_ok=True)
    with open(digits / "spoken_digits.jsonl", "w") as f:
        for i, word in enumerate(DIGITS):
            speak(word, digits / "audio" / f"{word}.flac")
            f.write(json.dumps({"id": f"digit_{i}", "audio": f"audio/{word}.flac", "answer": word}) + "\n")

    qa = ROOT / "examples" / "spoken_qa"
    (qa / "audio").mkdir(parents=True, exist_ok=True)
    with open(qa / "spoken_qa.jsonl", "w") as f:
        for i, (sentence, question, answer) in enumerate(SPOKEN_QA):
            name = f"examples/spoken_qa/audio/clip_{i:02d}.wav"
            speak(sentence, ROOT / name)
            f.write(json.dumps({"audio": name, "question": question, "answer": answer}) + "\n")


if __name__ == "__main__":
    main()
