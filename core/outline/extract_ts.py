"""Definitions in JavaScript, TypeScript, Go, Rust and Java, read with tree-sitter.

Each language's grammar comes from its own wheel (``tree-sitter-javascript``
and so on), loaded on first use and kept per process; nothing is downloaded.
Only the statement lists that can hold definitions are walked (the file's
top level, class/trait/impl/interface bodies, namespaces and modules), never
function bodies, so a file costs little more than its parse.

What counts as a definition, per language:

* JavaScript/TypeScript: function declarations and signatures, classes and
  their methods (including fields whose value is an arrow function),
  ``const``/``let``/``var`` bound to an arrow function or function
  expression, and in TypeScript interfaces (with their method signatures),
  type aliases, enums and namespaces. ``export``/``declare`` wrappers are
  looked through.
* Go: functions, methods (``Receiver.Method``), type declarations (struct,
  interface with its methods, other types).
* Rust: functions, structs, unions, enums, traits (with their methods),
  type aliases, ``impl`` methods (``Type.method``; the trait of a trait
  impl is not part of the name) and ``mod`` blocks.
* Java: classes, records, interfaces, enums, annotation types, and their
  methods and constructors, nested types included.

A file whose tree has a syntax error is not outlined (like a Python file
that does not parse).
"""

from __future__ import annotations

import importlib
from typing import Callable

from tree_sitter import Language, Node, Parser

from ljtui.core.outline.model import QUALNAME_SEPARATOR, Row, digest_of, one_line

GRAMMARS: dict[str, tuple[str, str]] = {
    "javascript": ("tree_sitter_javascript", "language"),
    "typescript": ("tree_sitter_typescript", "language_typescript"),
    "tsx": ("tree_sitter_typescript", "language_tsx"),
    "go": ("tree_sitter_go", "language"),
    "rust": ("tree_sitter_rust", "language"),
    "java": ("tree_sitter_java", "language"),
}
"""Language name -> (grammar module, function returning its language)."""
_PREFIX_NODES = frozenset({"decorator", "attribute_item", "comment", "line_comment", "block_comment"})
"""Nodes before a definition that belong to it (decorators, attributes) or are skipped (comments)."""
_JAVA_ANNOTATIONS = frozenset({"annotation", "marker_annotation", "line_comment", "block_comment"})
_TRAILING = " \t\r\n;{,="
"""Characters stripped from the end of a signature (statement ends, an opening body)."""
_RUST_BRACED = frozenset({"field_declaration_list", "enum_variant_list", "declaration_list"})
"""Rust bodies in braces: a signature stops before them (a tuple struct's fields stay in it)."""
_FUNCTION_VALUES = frozenset({"arrow_function", "function_expression", "function", "generator_function"})

_parsers: dict[str, Parser] = {}


def parser_for(language: str) -> Parser:
    """This process's parser for ``language`` (a key of :data:`GRAMMARS`)."""
    parser = _parsers.get(language)
    if parser is None:
        module_name, function = GRAMMARS[language]
        module = importlib.import_module(module_name)
        parser = Parser(Language(getattr(module, function)()))
        _parsers[language] = parser
    return parser


def extract_tree(language: str, source: bytes) -> list[Row] | None:
    """The definitions in ``source``, in source order; ``None`` when it has a syntax error.

    Args:
        language: a key of :data:`GRAMMARS`.
        source: the file's bytes.
    """
    root = parser_for(language).parse(source).root_node
    if root.has_error:
        return None
    extractor = _Extractor(source)
    _WALKERS[language](extractor, root, "")
    extractor.rows.sort(key=lambda r: r[0])
    return extractor.rows


class _Extractor:
    """Collects rows from one file's tree."""

    def __init__(self, source: bytes) -> None:
        self.source = source
        self.rows: list[Row] = []

    def text(self, node: Node | None) -> str:
        if node is None:
            return ""
        return self.source[node.start_byte:node.end_byte].decode("utf-8", "replace")

    def emit(self, node: Node, name: str, kind: str, prefix: str, *, start: Node | None = None,
             body: Node | None = None, span: Node | None = None, lead: str = "") -> str:
        """Add one definition and return its qualified name.

        Args:
            node: the definition's node.
            name: its name.
            kind: its kind.
            prefix: the enclosing qualified name plus separator, or ``""``.
            start: where the signature starts (default: after leading decorators).
            body: where the signature ends (default: the node's ``body`` field, else its end;
                ``node`` itself: its end).
            span: the node whose text the digest covers (default ``node``), widened to
                the decorators/attributes right before it.
            lead: text put before the signature (a ``const`` keyword, ``type``).
        """
        begin = start if start is not None else _signature_start(node)
        body = body if body is not None else node.child_by_field_name("body")
        stop = node.end_byte if body is None or body == node else body.start_byte
        header = self.source[begin.start_byte:stop].decode("utf-8", "replace").rstrip(_TRAILING)
        span = span or node
        first = _leading_start(span)
        digest = digest_of(self.source[first:span.end_byte])
        qualname = prefix + name
        self.rows.append((begin.start_point.row + 1, span.end_point.row + 1, kind, qualname,
                          one_line(lead + header), digest))
        return qualname


def _signature_start(node: Node) -> Node:
    """The first child of ``node`` that is not a decorator or comment (or ``node`` itself)."""
    for child in node.children:
        if child.type not in _PREFIX_NODES:
            return child
    return node


def _leading_start(node: Node) -> int:
    """The start byte of ``node`` widened over the decorators/attributes right before it."""
    start = node.start_byte
    sibling = node.prev_named_sibling
    while sibling is not None and sibling.type in ("decorator", "attribute_item"):
        start = sibling.start_byte
        sibling = sibling.prev_named_sibling
    return start


def _name(ex: _Extractor, node: Node, field: str = "name") -> str:
    return ex.text(node.child_by_field_name(field))


def _nested(qualname: str) -> str:
    return qualname + QUALNAME_SEPARATOR


# JavaScript / TypeScript


def _js_statements(ex: _Extractor, node: Node, prefix: str) -> None:
    for child in node.named_children:
        _js_statement(ex, child, prefix, child)


def _js_statement(ex: _Extractor, node: Node, prefix: str, span: Node) -> None:
    kind = node.type
    if kind == "export_statement":
        declaration = node.child_by_field_name("declaration")
        if declaration is not None:
            _js_statement(ex, declaration, prefix, node)
    elif kind == "ambient_declaration":
        for child in node.named_children:
            _js_statement(ex, child, prefix, node)
    elif kind == "expression_statement":
        inner = node.named_children[0] if node.named_children else None
        if inner is not None and inner.type in ("internal_module", "module"):
            _js_statement(ex, inner, prefix, node)
    elif kind in ("internal_module", "module"):
        body = node.child_by_field_name("body")
        qualname = ex.emit(node, _name(ex, node), "namespace", prefix, span=span)
        if body is not None:
            _js_statements(ex, body, _nested(qualname))
    elif kind in ("function_declaration", "generator_function_declaration", "function_signature"):
        ex.emit(node, _name(ex, node), "function", prefix, span=span)
    elif kind in ("class_declaration", "abstract_class_declaration", "class"):
        if node.child_by_field_name("name") is not None:
            qualname = ex.emit(node, _name(ex, node), "class", prefix, span=span)
            _js_class_body(ex, node.child_by_field_name("body"), _nested(qualname))
    elif kind == "interface_declaration":
        qualname = ex.emit(node, _name(ex, node), "interface", prefix, span=span)
        _js_interface_body(ex, node.child_by_field_name("body"), _nested(qualname))
    elif kind == "type_alias_declaration":
        ex.emit(node, _name(ex, node), "type", prefix, body=node, span=span)
    elif kind == "enum_declaration":
        ex.emit(node, _name(ex, node), "enum", prefix, span=span)
    elif kind in ("lexical_declaration", "variable_declaration"):
        _js_bound_functions(ex, node, prefix, span)


def _js_bound_functions(ex: _Extractor, node: Node, prefix: str, span: Node) -> None:
    """``const f = (…) => …`` and ``var g = function (…) {…}``: functions under a variable's name."""
    keyword = ex.text(node.children[0]) if node.children else ""
    for declarator in node.named_children:
        value = declarator.child_by_field_name("value")
        name = declarator.child_by_field_name("name")
        if declarator.type != "variable_declarator" or value is None or value.type not in _FUNCTION_VALUES:
            continue
        if name is None or name.type != "identifier":
            continue
        ex.emit(declarator, ex.text(name), "function", prefix, body=value.child_by_field_name("body"),
                span=span if len(node.named_children) == 1 else declarator, lead=f"{keyword} ")


def _js_class_body(ex: _Extractor, body: Node | None, prefix: str) -> None:
    if body is None:
        return
    for member in body.named_children:
        kind = member.type
        if kind in ("method_definition", "abstract_method_signature"):
            ex.emit(member, _name(ex, member), "method", prefix)
        elif kind in ("field_definition", "public_field_definition"):
            value = member.child_by_field_name("value")
            name = member.child_by_field_name("name") or member.child_by_field_name("property")
            if value is not None and value.type in _FUNCTION_VALUES and name is not None:
                ex.emit(member, ex.text(name), "method", prefix, body=value.child_by_field_name("body"))


def _js_interface_body(ex: _Extractor, body: Node | None, prefix: str) -> None:
    if body is None:
        return
    for member in body.named_children:
        if member.type == "method_signature":
            ex.emit(member, _name(ex, member), "method", prefix)


# Go


def _go_file(ex: _Extractor, root: Node, prefix: str) -> None:
    for node in root.named_children:
        if node.type == "function_declaration":
            ex.emit(node, _name(ex, node), "function", prefix)
        elif node.type == "method_declaration":
            receiver = _go_receiver(ex, node.child_by_field_name("receiver"))
            ex.emit(node, _name(ex, node), "method", _nested(receiver) if receiver else prefix)
        elif node.type == "type_declaration":
            for spec in node.named_children:
                if spec.type in ("type_spec", "type_alias"):
                    _go_type(ex, spec, prefix, node)


def _go_type(ex: _Extractor, spec: Node, prefix: str, declaration: Node) -> None:
    shape = spec.child_by_field_name("type")
    shape_kind = shape.type if shape is not None else ""
    kind = {"struct_type": "struct", "interface_type": "interface"}.get(shape_kind, "type")
    single = len(declaration.named_children) == 1
    header_end = _go_brace(shape) if kind != "type" else None
    qualname = ex.emit(spec, _name(ex, spec), kind, prefix, start=spec, body=header_end,
                       span=declaration if single else spec, lead="type ")
    if kind == "interface" and shape is not None:
        for element in shape.named_children:
            if element.type == "method_elem":
                ex.emit(element, _name(ex, element), "method", _nested(qualname))


def _go_brace(shape: Node | None) -> Node | None:
    """The ``{`` opening a struct's or interface's body."""
    if shape is None:
        return None
    for child in shape.children:
        if child.type == "{" or child.type == "field_declaration_list":
            return child
    return None


def _go_receiver(ex: _Extractor, receiver: Node | None) -> str:
    """The receiver's type name: ``Server`` for ``(s *Server)`` and ``(s Box[T])``."""
    stack = [receiver] if receiver is not None else []
    while stack:
        node = stack.pop(0)
        if node.type == "type_identifier":
            return ex.text(node)
        stack.extend(node.named_children)
    return ""


# Rust


def _rust_items(ex: _Extractor, node: Node, prefix: str, member_kind: str = "function") -> None:
    kinds = {"struct_item": "struct", "union_item": "struct", "enum_item": "enum", "type_item": "type"}
    for item in node.named_children:
        kind = item.type
        if kind in ("function_item", "function_signature_item"):
            ex.emit(item, _name(ex, item), member_kind, prefix)
        elif kind in kinds:
            body = item.child_by_field_name("body")
            ex.emit(item, _name(ex, item), kinds[kind], prefix,
                    body=body if body is not None and body.type in _RUST_BRACED else item)
        elif kind == "trait_item":
            qualname = ex.emit(item, _name(ex, item), "trait", prefix)
            _rust_body(ex, item, _nested(qualname), "method")
        elif kind == "impl_item":
            _rust_body(ex, item, _nested(prefix + _rust_type_name(ex, item.child_by_field_name("type"))), "method")
        elif kind == "mod_item" and item.child_by_field_name("body") is not None:
            qualname = ex.emit(item, _name(ex, item), "module", prefix)
            _rust_body(ex, item, _nested(qualname), "function")
        elif kind == "foreign_mod_item":
            _rust_body(ex, item, prefix, "function")


def _rust_body(ex: _Extractor, item: Node, prefix: str, member_kind: str) -> None:
    body = item.child_by_field_name("body")
    if body is not None:
        _rust_items(ex, body, prefix, member_kind)


def _rust_type_name(ex: _Extractor, node: Node | None) -> str:
    """``Wrapper`` for ``Wrapper<T>``, ``Point`` for ``geo::Point``, the text otherwise."""
    while node is not None and node.type in ("generic_type", "scoped_type_identifier", "reference_type"):
        node = node.child_by_field_name("name" if node.type == "scoped_type_identifier" else "type")
    return one_line(ex.text(node)) or "impl"


# Java


def _java_members(ex: _Extractor, node: Node | None, prefix: str) -> None:
    if node is None:
        return
    types = {"class_declaration": "class", "record_declaration": "class", "interface_declaration": "interface",
             "annotation_type_declaration": "interface", "enum_declaration": "enum"}
    for member in node.named_children:
        kind = member.type
        if kind in types:
            qualname = ex.emit(member, _name(ex, member), types[kind], prefix, start=_java_start(member))
            body = member.child_by_field_name("body")
            _java_members(ex, body, _nested(qualname))
        elif kind in ("method_declaration", "constructor_declaration", "compact_constructor_declaration"):
            ex.emit(member, _name(ex, member), "method", prefix, start=_java_start(member))
        elif kind == "enum_body_declarations":
            _java_members(ex, member, prefix)


def _java_start(node: Node) -> Node:
    """Where a Java declaration's signature starts: its first modifier that is not an annotation."""
    first = node.children[0] if node.children else node
    if first.type != "modifiers":
        return first
    for child in first.children:
        if child.type not in _JAVA_ANNOTATIONS:
            return child
    return first.next_sibling or first


_WALKERS: dict[str, Callable[[_Extractor, Node, str], None]] = {
    "javascript": _js_statements,
    "typescript": _js_statements,
    "tsx": _js_statements,
    "go": _go_file,
    "rust": _rust_items,
    "java": _java_members,
}
