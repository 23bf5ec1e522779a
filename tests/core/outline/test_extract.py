"""Definitions, qualified names and signatures per language, read from real sample files."""

from __future__ import annotations

from pathlib import Path

import pytest

from ljtui.core.outline import build_index
from tests.core.outline.conftest import write

EXPECTED: dict[str, list[tuple[int, str, str, str]]] = {
    "sample.py": [
        (8, "function", "plain", 'def plain(a, b=2, *args, key: str = "k", **kwargs) -> int'),
        (14, "function", "fetch", "async def fetch(url: str, timeout: float = 1.0) -> bytes"),
        (21, "class", "Uploader", "class Uploader(Base, metaclass=Meta)"),
        (26, "method", "Uploader.__init__", "def __init__(self, client)"),
        (30, "method", "Uploader.name", "def name(self) -> str"),
        (32, "method", "Uploader.send", 'def send(self, url: str, data: bytes = b":)") -> None'),
        (37, "class", "Uploader.Policy", "class Policy"),
        (38, "method", "Uploader.Policy.attempts", "def attempts(self, n: int = 3)"),
        (42, "function", "conditional", "def conditional(x)"),
        (44, "function", "conditional", "def conditional(x)"),
        (49, "function", "loads", "def loads(s)"),
        (51, "function", "one_liner", 'def one_liner(x="é")'),
    ],
    "sample.js": [
        (3, "function", "greet", 'function greet(name, greeting = "hello")'),
        (7, "class", "Greeter", "class Greeter extends Base"),
        (8, "method", "Greeter.constructor", "constructor(name)"),
        (13, "method", "Greeter.create", "static create(name)"),
        (15, "method", "Greeter.stream", "async *stream()"),
        (19, "method", "Greeter.onClick", "onClick = () =>"),
        (24, "function", "shout", "const shout = async (text) =>"),
        (26, "function", "helper", "let helper = function (a, b)"),
        (28, "function", "counter", "function* counter()"),
    ],
    "sample.ts": [
        (3, "interface", "Shape", "interface Shape"),
        (4, "method", "Shape.area", "area(): number"),
        (8, "type", "Point", "type Point = { x: number; y: number }"),
        (10, "enum", "Color", "enum Color"),
        (13, "class", "Base", "abstract class Base<T> implements Shape"),
        (15, "method", "Base.area", "abstract area(): number"),
        (18, "method", "Base.load", "public async load(id: string, retries = 3): Promise<T | undefined>"),
        (22, "method", "Base.handle", "handle = (event: Event): void =>"),
        (26, "method", "Base.name", "get name(): string"),
        (29, "function", "makeShape", "const makeShape = (kind: string): Shape =>"),
        (33, "function", "area", "function area(shape: Shape): number"),
        (39, "function", "overloaded", "function overloaded(x: string): string"),
        (40, "function", "overloaded", "function overloaded(x: number): number"),
        (41, "function", "overloaded", "function overloaded(x: any): any"),
        (43, "function", "external", "function external(flag: boolean): void"),
        (45, "namespace", "Geometry", "namespace Geometry"),
        (46, "function", "Geometry.distance", "function distance(a: Point, b: Point): number"),
    ],
    "view.tsx": [
        (3, "type", "Props", "type Props = { name: string }"),
        (5, "function", "Hello", "const Hello = ({ name }: Props): JSX.Element =>"),
        (7, "function", "App", "function App(props: Props)"),
    ],
    "sample.go": [
        (6, "struct", "Server", "type Server struct"),
        (10, "interface", "Handler", "type Handler interface"),
        (11, "method", "Handler.Serve", "Serve(w http.ResponseWriter, r *http.Request) error"),
        (12, "method", "Handler.Name", "Name() string"),
        (16, "type", "ID", "type ID int"),
        (17, "type", "Alias", "type Alias = string"),
        (20, "function", "New", "func New(addr string) *Server"),
        (24, "method", "Server.Start", "func (s *Server) Start(ctx context.Context, opts ...Option) (err error)"),
        (28, "method", "Server.Addr", "func (s Server) Addr() string"),
        (30, "function", "Map", "func Map[T any, U any](items []T, f func(T) U) []U"),
    ],
    "sample.rs": [
        (5, "struct", "Point", "pub struct Point"),
        (10, "struct", "Meters", "pub struct Meters(f64)"),
        (12, "enum", "Shape", "pub enum Shape"),
        (17, "trait", "Area", "pub trait Area"),
        (18, "method", "Area.area", "fn area(&self) -> f64"),
        (19, "method", "Area.describe", "fn describe(&self) -> String"),
        (25, "method", "Point.new", "pub fn new(x: f64, y: f64) -> Self"),
        (29, "method", "Point.norm", "fn norm(&self) -> f64"),
        (33, "method", "Wrapper.fmt", "fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result"),
        (38, "function", "distance", "pub fn distance(a: &Point, b: &Point) -> f64"),
        (42, "type", "Pair", "pub type Pair = (Point, Point)"),
        (44, "module", "geometry", "mod geometry"),
        (45, "function", "geometry.origin", "pub fn origin() -> super::Point"),
    ],
    "Sample.java": [
        (6, "class", "Uploader", "public class Uploader extends Base implements Sender"),
        (9, "method", "Uploader.Uploader", "public Uploader(Client client)"),
        (14, "method", "Uploader.send", "public Response send(String url, byte[] data) throws IOException"),
        (18, "class", "Uploader.Retry", "static class Retry"),
        (19, "method", "Uploader.Retry.attempts", "int attempts(int max)"),
        (22, "enum", "Uploader.Mode", "public enum Mode"),
        (25, "method", "Uploader.Mode.isFast", "boolean isFast()"),
        (29, "interface", "Sender", "interface Sender"),
        (30, "method", "Sender.send", "Response send(String url, byte[] data) throws IOException"),
        (33, "class", "Pair", "record Pair<A, B>(A first, B second)"),
        (34, "method", "Pair.left", "A left()"),
    ],
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_definitions_per_language(langs: Path, name: str) -> None:
    index = build_index(langs, workers=1)
    found = [(s.line, s.kind, s.qualname, s.signature) for s in index.files[name].symbols]
    assert found == EXPECTED[name]


def test_every_sample_is_outlined_and_nothing_skipped(langs: Path) -> None:
    index = build_index(langs, workers=1)
    assert sorted(index.files) == sorted(EXPECTED)
    assert index.skipped.total == 0
    assert index.symbol_count == sum(len(rows) for rows in EXPECTED.values())


def test_end_lines_cover_bodies_and_decorators_start_no_definition(langs: Path) -> None:
    symbols = {s.qualname: s for s in build_index(langs, workers=1).files["sample.py"].symbols}
    assert (symbols["Uploader"].line, symbols["Uploader"].end_line) == (21, 38)
    assert (symbols["fetch"].line, symbols["fetch"].end_line) == (14, 18)
    assert symbols["Uploader.name"].line == 30


def test_digest_changes_with_the_definition_and_what_encloses_it_only(langs: Path) -> None:
    before = {s.qualname: s.digest for s in build_index(langs, workers=1).files["sample.py"].symbols}
    path = langs / "sample.py"
    path.write_text(path.read_text().replace("return inner()", "return inner() or None"))
    after = {s.qualname: s.digest for s in build_index(langs, workers=1).files["sample.py"].symbols}
    changed = {name for name in before if before[name] != after[name]}
    assert changed == {"Uploader", "Uploader.send"}


def test_signatures_are_one_line_without_comments_and_cut_when_long(tmp_path: Path) -> None:
    params = ", ".join(f"parameter_{i}: int = {i}" for i in range(30))
    root = write(tmp_path / "r", {
        "m.py": ("def spread(\n    a,  # first\n    b='#not a comment',\n):\n    pass\n\n"
                 f"def long({params}):\n    pass\n"),
    })
    spread, long = build_index(root, workers=1).files["m.py"].symbols
    assert spread.signature == "def spread(a, b='#not a comment')"
    assert len(long.signature) == 160 and long.signature.endswith("…")


def test_other_encodings_and_byte_order_marks(tmp_path: Path) -> None:
    root = tmp_path / "r"
    root.mkdir()
    (root / "latin.py").write_bytes(b"# -*- coding: latin-1 -*-\ndef caf\xe9():\n    return '\xe9'\n")
    (root / "bom.py").write_bytes("\ufeffdef first():\n    pass\n".encode("utf-8"))
    index = build_index(root, workers=1)
    assert [s.qualname for s in index.files["latin.py"].symbols] == ["café"]
    assert [s.qualname for s in index.files["bom.py"].symbols] == ["first"]


def test_files_with_syntax_errors_are_skipped_and_counted(tmp_path: Path) -> None:
    root = write(tmp_path / "r", {
        "bad.py": "def broken(:\n", "bad.ts": "export function (((\n", "bad.go": "func {\n",
        "good.py": "def fine():\n    pass\n",
    })
    index = build_index(root, workers=1)
    assert list(index.files) == ["good.py"]
    assert index.skipped.unparsable == 3
