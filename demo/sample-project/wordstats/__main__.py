"""``python -m wordstats FILE``: the counts of a text file."""

from __future__ import annotations

import sys
from pathlib import Path

from wordstats.counting import count_lines, count_words, top_words

USAGE = "usage: python -m wordstats FILE"


def main(argv: list[str]) -> int:
    """Print the line and word counts and the most common words of the file in ``argv``."""
    if len(argv) != 1:
        print(USAGE, file=sys.stderr)
        return 2
    try:
        text = Path(argv[0]).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        print(f"wordstats: {argv[0]}: {exc}", file=sys.stderr)
        return 1
    print(f"{count_lines(text)} lines, {count_words(text)} words")
    for word, count in top_words(text):
        print(f"  {word}: {count}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
