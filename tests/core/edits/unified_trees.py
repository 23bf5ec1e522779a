"""The file trees the diff fixtures in ``patches/`` were made from: each fixture's tree before and after.

A tree maps a path to its bytes, or to ``(bytes, 0o755)`` for an executable
file. ``patches/README.md`` says which tool made each fixture from these trees.
"""

from __future__ import annotations

Tree = dict[str, "bytes | tuple[bytes, int]"]

APP_BEFORE = b"""import sys


def helper(value):
    \"\"\"Double a value.\"\"\"
    return value * 2


def main():
    args = sys.argv[1:]
    total = 0
    for arg in args:
        total += helper(int(arg))
    print(total)  \t
\tprint("tab-indented")
    return 0


def unused():
    pass


def tail():
    one = 1
    two = 2
    three = 3
    return one + two + three


if __name__ == "__main__":
    sys.exit(main())
"""
APP_AFTER = (APP_BEFORE.replace(b"    total = 0\n", b"    total = 0  # running sum\n    seen = []\n")
             .replace(b"    two = 2\n", b"    two = 22\n"))

README_BEFORE = b"# Title\n\nSome text.\nMore text.\nLast line.\n"
README_AFTER = b"# New title\n\nSome text.\nMore text.\nThe last line.\n"

GIT_MODIFY = ({"src/app.py": APP_BEFORE, "README.md": README_BEFORE},
              {"src/app.py": APP_AFTER, "README.md": README_AFTER})

GIT_CREATE_DELETE = (
    {"old.txt": b"one\ntwo\n", "empty_old.txt": b"", "keep.txt": b"kept\n"},
    {"keep.txt": b"kept\n", "new/dir/file.txt": b"hello\nworld\n", "empty_new.txt": b"",
     "run.sh": (b"#!/bin/sh\necho hi\n", 0o755)},
)

UTIL_BEFORE = b"".join(b"def f%d():\n    return %d\n\n" % (n, n) for n in range(1, 9))
GIT_RENAME = (
    {"lib/util.py": UTIL_BEFORE, "docs/guide.md": b"# Guide\n\nStep one.\nStep two.\nStep three.\n",
     "tool.sh": b"#!/bin/sh\necho tool\n"},
    {"lib/helpers.py": UTIL_BEFORE.replace(b"    return 4\n", b"    return 40\n"),
     "docs/manual.md": b"# Guide\n\nStep one.\nStep two.\nStep three.\n",
     "bin/tool.sh": (b"#!/bin/sh\necho tool\n", 0o755)},
)

GIT_MODE = (
    {"script.py": b"print('hi')\n", "build.sh": (b"#!/bin/sh\nmake\n", 0o755), "data.txt": b"1\n2\n"},
    {"script.py": (b"print('hi')\n", 0o755), "build.sh": b"#!/bin/sh\nmake all\n", "data.txt": b"1\n2\n"},
)

GIT_NO_NEWLINE = (
    {"a.txt": b"x\ny\nz", "b.txt": b"1\n2\n3\n", "c.txt": b"p\nq"},
    {"a.txt": b"x\ny\nz\n", "b.txt": b"1\n2\n3", "c.txt": b"p\nQ", "d.txt": b"solo"},
)

GIT_CRLF = (
    {"win.txt": b"a\r\nb\r\nc\r\n", "mixed.txt": b"lf\ncrlf\r\nlf\n", "tail.txt": b"one\r\ntwo"},
    {"win.txt": b"a\r\nB\r\nc\r\n", "mixed.txt": b"lf\nCRLF\r\nlf\n", "tail.txt": b"one\r\nTWO"},
)

CRLF_LONG = b"".join(b"line %d\r\n" % n for n in range(1, 21))
GIT_CRLF_SAVED = (
    {"win.txt": b"alpha\r\nbeta\r\ngamma\r\n", "long.txt": CRLF_LONG},
    {"win.txt": b"alpha\r\nBETA\r\ngamma\r\n",
     "long.txt": CRLF_LONG.replace(b"line 2\r\n", b"line two\r\n").replace(b"line 18\r\n", b"")},
)

SPECIAL = 'sp\u00e9cial "q".txt'
GIT_QUOTED = (
    {SPECIAL: b"one\n", "with space.txt": b"a\nb\n", "old name.txt": b"moved\ncontent\nhere\n"},
    {SPECIAL: b"two\n", "with space.txt": b"a\nB\n", "new name.txt": b"moved\ncontent\nhere\n",
     "new empty.txt": b""},
)

LATIN1_NAME = "caf\udce9.txt"
"""A file name holding the byte ``0xE9`` (Latin-1 ``é``), not UTF-8: a lone surrogate once decoded."""
GIT_LATIN1 = (
    {"latin1.txt": b"caf\xe9\nna\xefve\n", LATIN1_NAME: b"old\n"},
    {"latin1.txt": b"caf\xe9s\nna\xefve\n", LATIN1_NAME: b"new\n"},
)

GREET_1 = b'def greet(name):\n    return "Hello, " + name\n\n\ndef shout(name):\n    return greet(name).upper()\n'
GREET_2 = (b'def greet(name):\n    """Greet someone."""\n    return "Hello, " + name + "!"\n\n\n'
           b'def shout(name):\n    return greet(name).upper()\n')
GREET_3 = (GREET_2.replace(b"def greet(name):\n", b"def hello(name):\n")
           .replace(b"greet(name).upper", b"hello(name).upper"))
SERIES_README = b"# Series\n\nA project.\n"
MBOX_SERIES = (
    {"README.md": SERIES_README},
    [
        ("Add the greeting module",
         {"README.md": SERIES_README + b"\nSee greet.py.\n", "greet.py": GREET_1}),
        ("Document greet() and end its greeting with an exclamation mark, which makes this subject"
         " long enough to fold",
         {"README.md": SERIES_README + b"\nSee greet.py.\n", "greet.py": GREET_2}),
        ("Gr\u00fc\u00dfe: rename greet to hello",
         {"README.md": SERIES_README + b"\nSee hello.py.\n", "hello.py": GREET_3}),
    ],
)
"""The tree before, then each commit's subject and tree after it."""

UNIFIED_FILE = ({"greeting.txt": b"Hello\nWorld\n"}, {"greeting.txt": b"Hello\nthere\nWorld\n"})

MAIN_C = b"".join(b"int f%d(void)\n{\n\treturn %d;\n}\n\n" % (n, n) for n in range(1, 7))
UNIFIED_TREE = (
    {"src/main.c": MAIN_C, "old.txt": b"obsolete\nfile\n", "notes.txt": b"first\nlast"},
    {"src/main.c": MAIN_C.replace(b"\treturn 2;", b"\treturn 20;").replace(b"\treturn 6;", b"\treturn 60;"),
     "src/new.h": b"#pragma once\nint f1(void);\n", "notes.txt": b"first\nlast\n"},
)

UNIFIED_ONLY_IN = (
    {"file.txt": b"keep\nchange me\nkeep\n", "stale.txt": b"stale\n"},
    {"file.txt": b"keep\nchanged\nkeep\n", "extra.txt": b"extra\n"},
)

GIT_SHOW = (
    {"a.txt": b"".join(b"%d\n" % n for n in range(1, 11)), "k.txt": b"keep\n"},
    {"a.txt": b"".join(b"%d\n" % n for n in range(100, 113)), "k.txt": b"keep2\n"},
)
GIT_SHOW_MESSAGE = "Replace the numbers\n\n- the old list goes\n+ a new one comes\n"
"""The commit message of ``git_show.diff``: its lines look like hunk lines, indented by ``git show``."""
