"""Grade /app/dedupe.py on correctness (small cases) and speed (200,000 lines in 5 s)."""

import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

CASES = [
    ("a\nb\na\nc\nb\n", "a\nb\nc\n"),
    ("", ""),
    ("only\n", "only\n"),
    ("x\ny\nx", "x\ny\n"),
    ("\n\nz\n\n", "\nz\n"),
    ("Apple\napple\napple \nApple\n", "Apple\napple\napple \n"),
    ("é\nü\né\n", "é\nü\n"),
]
SPEED_LIMIT_S = 5


def dedupe(program: str, text: str, work: Path, limit_s: float) -> str | None:
    """The program's output for `text`, or None when it failed or ran past the limit."""
    source, target = work / "in.txt", work / "out.txt"
    source.write_text(text, encoding="utf-8")
    target.unlink(missing_ok=True)
    try:
        done = subprocess.run(
            ["python3", program, str(source), str(target)], timeout=limit_s, check=False
        )
    except subprocess.TimeoutExpired:
        print(f"ran past {limit_s} s")
        return None
    if done.returncode != 0 or not target.exists():
        print(f"exit code {done.returncode}, output written: {target.exists()}")
        return None
    return target.read_text(encoding="utf-8")


def correctness(program: str, work: Path) -> int:
    for number, (given, wanted) in enumerate(CASES, 1):
        got = dedupe(program, given, work, limit_s=10)
        if got != wanted:
            print(f"case {number}: wanted {wanted!r}, got {got!r}")
            return 0
    return 1


def speed(program: str, work: Path) -> int:
    chooser = random.Random(7)
    lines = [f"line-{chooser.randrange(20_000)}" for _ in range(200_000)]
    wanted = "".join(line + "\n" for line in dict.fromkeys(lines))
    got = dedupe(program, "\n".join(lines) + "\n", work, limit_s=SPEED_LIMIT_S)
    return int(got == wanted)


def main() -> None:
    program, reward_file = sys.argv[1], Path(sys.argv[2])
    rewards = {"correctness": 0, "speed": 0}
    if Path(program).is_file():
        with tempfile.TemporaryDirectory() as work:
            rewards = {
                "correctness": correctness(program, Path(work)),
                "speed": speed(program, Path(work)),
            }
    else:
        print(f"{program} does not exist")
    print(rewards)
    reward_file.write_text(json.dumps(rewards))


if __name__ == "__main__":
    main()
