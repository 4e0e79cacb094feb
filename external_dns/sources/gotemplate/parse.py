"""Parser for Go's text/template: tokens -> a tree of frozen nodes, checked before anything runs.

Actions: `{{pipeline}}`, `{{if}}`/`{{else if}}`/`{{else}}`/`{{end}}`, `{{range}}` (with `$v :=` or
`$k, $v :=`, `{{else}}`, `{{break}}`, `{{continue}}`), `{{with}}`/`{{else with}}`, variables (`$x := ...`,
`$x = ...`, `$`), parenthesised pipelines, field chains on dot, variables and parentheses, the functions of
`funcs.FUNCS`, and named templates: `{{define "name"}}...{{end}}` (top level only), `{{template "name"}}` /
`{{template "name" pipeline}}` and `{{block "name" pipeline}}...{{end}}` (a definition and its call). A
definition's body has its own variables (`$` only) and no enclosing `{{range}}`, as in Go; a name defined
twice with two non-empty bodies is refused ("multiple definition"), an empty body gives way. Any other
function is refused with the position. Variables must be declared before use, as Go checks at parse time.
`parse` gives the main template's nodes, `parse_program` those and the named templates (`Program`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from external_dns.sources.gotemplate.funcs import FUNCS, LAZY, arity_problem
from external_dns.sources.gotemplate.lexer import Lexer, TemplateError, Token, position

MAX_DEPTH = 64  # nested controls and parentheses


@dataclass(frozen=True)
class Text:
    text: str


@dataclass(frozen=True)
class Field:
    names: tuple[str, ...]  # () is "." itself


@dataclass(frozen=True)
class Variable:
    name: str  # "$" or "$x"
    names: tuple[str, ...]


@dataclass(frozen=True)
class Literal:
    value: Any  # str, int, float, bool or None (nil)


@dataclass(frozen=True)
class Ident:
    name: str  # a function


@dataclass(frozen=True)
class Paren:
    pipe: Pipeline
    names: tuple[str, ...]


Operand = Field | Variable | Literal | Ident | Paren


@dataclass(frozen=True)
class Command:
    operands: tuple[Operand, ...]
    pos: int


@dataclass(frozen=True)
class Pipeline:
    decl: tuple[str, ...]
    assign: bool  # `$x = ...` (True) or `$x := ...` (False)
    commands: tuple[Command, ...]
    pos: int


@dataclass(frozen=True)
class Action:
    pipe: Pipeline


@dataclass(frozen=True)
class Control:
    kind: str  # if, range, with
    pipe: Pipeline
    body: tuple[Node, ...]
    orelse: tuple[Node, ...]


@dataclass(frozen=True)
class TemplateCall:
    """`{{template "name" pipeline}}` (a `{{block}}` too): run the named template with the pipeline's value
    as dot (nil without one)."""

    name: str
    pipe: Pipeline | None
    pos: int


@dataclass(frozen=True)
class Break:
    pass


@dataclass(frozen=True)
class Continue:
    pass


Node = Text | Action | Control | TemplateCall | Break | Continue


@dataclass(frozen=True)
class Program:
    """A parsed template: the main template's nodes and the named ones (`{{define}}`, `{{block}}`)."""

    main: tuple[Node, ...]
    templates: dict[str, tuple[Node, ...]]


def is_empty(nodes: tuple[Node, ...]) -> bool:
    """Go's IsEmptyTree: nothing but white space (comments are gone already)."""
    return all(isinstance(n, Text) and not n.text.strip() for n in nodes)

_KEYWORDS = {"if", "else", "end", "range", "with", "break", "continue", "define", "template", "block", "nil",
             "true", "false"}


class Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = Lexer(text).run()
        self.i = 0
        self.vars: list[str] = ["$"]
        self.depth = 0
        self.range_depth = 0
        self.in_definition = False
        self.templates: dict[str, tuple[Node, ...]] = {}

    # -- token helpers ------------------------------------------------------------------------------------
    def peek(self, k: int = 0) -> Token:
        return self.tokens[min(self.i + k, len(self.tokens) - 1)]

    def next(self) -> Token:
        tok = self.peek()
        self.i += 1
        return tok

    def error(self, tok: Token, msg: str) -> TemplateError:
        return TemplateError(f"template: {position(self.text, tok.pos)}: {msg}")

    def expect_right(self, context: str) -> None:
        tok = self.next()
        if tok.kind != "right":
            raise self.error(tok, f"unexpected {_describe(tok)} in {context}")

    def keyword(self, tok: Token) -> str:
        return tok.value if tok.kind == "ident" and tok.value in _KEYWORDS else ""

    # -- lists and actions --------------------------------------------------------------------------------
    def parse(self) -> tuple[Node, ...]:
        nodes, stop = self.item_list()
        if stop != "eof":
            raise self.error(self.tokens[self.i - 2], f"unexpected {{{{{stop}}}}}")
        return nodes

    def program(self, main_name: str) -> Program:
        main = self.parse()
        self.add(main_name, main, self.tokens[0])  # as Go: the definitions first, the main template last
        return Program(self.templates.get(main_name, main), dict(self.templates))

    def add(self, name: str, body: tuple[Node, ...], tok: Token) -> None:
        """Go's Tree.add: a name is defined once; an empty body gives way to a non-empty one."""
        old = self.templates.get(name)
        if old is None or is_empty(old):
            self.templates[name] = body
        elif not is_empty(body):
            raise self.error(tok, f"template: multiple definition of template {json.dumps(name)}")

    def template_name(self, context: str) -> str:
        tok = self.next()
        if tok.kind != "string":
            raise self.error(tok, f"unexpected {_describe(tok)} in {context}")
        return tok.value

    def definition(self, name: str, tok: Token, context: str) -> None:
        """The body of `{{define}}` or `{{block}}` up to its `{{end}}`, parsed as a template of its own."""
        saved = (self.vars, self.range_depth, self.in_definition)
        self.vars, self.range_depth, self.in_definition = ["$"], 0, True
        body, stop = self.item_list()
        if stop != "end":
            raise self.error(tok, f"unexpected {{{{{stop}}}}} in {context}" if stop != "eof"
                             else f"unexpected EOF in {context}")
        self.vars, self.range_depth, self.in_definition = saved
        self.add(name, body, tok)

    def item_list(self) -> tuple[tuple[Node, ...], str]:
        """Nodes up to `{{end}}`, `{{else ...` or the end; returns them and what stopped the list."""
        nodes: list[Node] = []
        while True:
            tok = self.next()
            if tok.kind == "eof":
                return tuple(nodes), "eof"
            if tok.kind == "text":
                nodes.append(Text(tok.value))
                continue
            word = self.keyword(self.peek())
            if word in ("end", "else"):
                self.next()
                if word == "end":
                    self.expect_right("end")
                return tuple(nodes), word
            nodes.append(self.action(word))

    def action(self, word: str) -> Node:
        tok = self.peek()
        if word in ("if", "range", "with"):
            self.next()
            return self.control(word, tok)
        if word in ("break", "continue"):
            self.next()
            if self.range_depth == 0:
                raise self.error(tok, f"{{{{{word}}}}} outside {{{{range}}}}")
            self.expect_right(word)
            return Break() if word == "break" else Continue()
        if word == "define":
            self.next()
            if self.depth or self.in_definition:  # Go parses definitions at the top level only
                raise self.error(tok, "unexpected <define> in command")
            name = self.template_name("define clause")
            self.expect_right("define clause")
            self.definition(name, tok, "define clause")
            return Text("")
        if word in ("template", "block"):
            self.next()
            context = f"{word} clause"
            name = self.template_name(context)
            pipe: Pipeline | None = None
            if word == "block" or self.peek().kind != "right":
                pipe = self.pipeline(context, decl_ok=True)
            self.expect_right(context)
            if word == "block":
                self.definition(name, tok, context)
            return TemplateCall(name, pipe, tok.pos)
        pipe = self.pipeline("command", decl_ok=True)
        self.expect_right("command")
        return Action(pipe)

    def control(self, kind: str, tok: Token) -> Control:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise self.error(tok, f"more than {MAX_DEPTH} nested actions")
        mark = len(self.vars)
        pipe = self.pipeline(kind, decl_ok=True, two_vars=kind == "range")
        self.expect_right(kind)
        if kind == "range":
            self.range_depth += 1
        body, stop = self.item_list()
        if kind == "range":
            self.range_depth -= 1
        orelse: tuple[Node, ...] = ()
        if stop == "else":
            orelse = self.else_branch(kind)
        elif stop != "end":
            raise self.error(tok, f"unexpected EOF: {{{{{kind}}}}} has no {{{{end}}}}")
        del self.vars[mark:]
        self.depth -= 1
        return Control(kind, pipe, body, orelse)

    def else_branch(self, kind: str) -> tuple[Node, ...]:
        chained = self.peek()
        if self.keyword(chained) == kind and kind in ("if", "with"):
            # `{{else if x}}` is `{{else}}{{if x}}...{{end}}{{end}}` with the inner {{end}} shared, as Go.
            self.next()
            return (self.control(kind, chained),)
        self.expect_right("else")
        orelse, stop = self.item_list()
        if stop != "end":
            raise self.error(chained, f"expected {{{{end}}}} after {{{{else}}}} of {{{{{kind}}}}}")
        return orelse

    # -- pipelines and commands ---------------------------------------------------------------------------
    def pipeline(self, context: str, decl_ok: bool = False, two_vars: bool = False) -> Pipeline:
        start = self.peek()
        decl, assign = self.declarations(context, two_vars) if decl_ok else ((), False)
        commands: list[Command] = []
        while True:
            commands.append(self.command(context, len(commands)))
            if self.peek().kind != "|":
                break
            self.next()
        for name in decl:
            if not assign:
                self.vars.append(name)
        return Pipeline(decl, assign, tuple(commands), start.pos)

    def declarations(self, context: str, two_vars: bool) -> tuple[tuple[str, ...], bool]:
        a, b = self.peek(), self.peek(1)
        if a.kind != "var":
            return (), False
        if b.kind in (":=", "="):
            if b.kind == "=" and a.value not in self.vars:
                raise self.error(a, f"undefined variable {a.value!r}")
            self.i += 2
            return (a.value,), b.kind == "="
        c, d = self.peek(2), self.peek(3)
        if b.kind == "," and c.kind == "var" and d.kind == ":=":
            if not two_vars:
                raise self.error(a, f"too many declarations in {context}")
            self.i += 4
            return (a.value, c.value), False
        return (), False

    def command(self, context: str, stage: int) -> Command:
        start = self.peek()
        operands: list[Operand] = []
        while self.peek().kind not in ("|", ")", "right", "eof"):
            tok = self.peek()
            operand = self.operand(context)
            if operands and isinstance(operand, Ident):
                self.check_arity(operand.name, 0, tok)  # a function as an argument is called with none
            operands.append(operand)
        if not operands:
            raise self.error(start, f"missing command in {context}" if stage else f"empty {context}")
        head = operands[0]
        if isinstance(head, Ident):
            self.check_arity(head.name, len(operands) - 1 + (1 if stage else 0), start)
        elif stage or len(operands) > 1:
            raise self.error(start, f"can't give argument to non-function {show(head)}")
        elif isinstance(head, Literal) and head.value is None:
            raise self.error(start, "nil is not a command")
        return Command(tuple(operands), start.pos)

    def check_arity(self, name: str, got: int, tok: Token) -> None:
        problem = arity_problem(name, got)
        if problem is not None:
            raise self.error(tok, problem)

    def operand(self, context: str) -> Operand:
        tok = self.next()
        if tok.kind == "field":
            return Field(self.chain(tok, (tok.value,) if tok.value else ()))
        if tok.kind == "var":
            if tok.value not in self.vars:
                raise self.error(tok, f"undefined variable {tok.value!r}")
            return Variable(tok.value, self.chain(tok, ()))
        if tok.kind == "string":
            return Literal(tok.value)
        if tok.kind in ("number", "char"):
            return Literal(self.number(tok))
        if tok.kind == "(":
            return self.paren(tok)
        if tok.kind == "ident":
            return self.identifier(tok)
        raise self.error(tok, f"unexpected {_describe(tok)} in {context}")

    def chain(self, tok: Token, names: tuple[str, ...]) -> tuple[str, ...]:
        end = tok.end
        while self.peek().kind == "field" and self.peek().pos == end and self.peek().value:
            field = self.next()
            names += (field.value,)
            end = field.end
        return names

    def paren(self, tok: Token) -> Paren:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise self.error(tok, f"more than {MAX_DEPTH} nested parentheses")
        pipe = self.pipeline("parenthesized pipeline", decl_ok=True)
        close = self.next()
        if close.kind != ")":
            raise self.error(close, f"unclosed left paren (found {_describe(close)})")
        self.depth -= 1
        return Paren(pipe, self.chain(close, ()))

    def identifier(self, tok: Token) -> Operand:
        name = tok.value
        if name in ("true", "false"):
            return Literal(name == "true")
        if name == "nil":
            return Literal(None)
        if name in _KEYWORDS:
            raise self.error(tok, f"unexpected {name!r} in operand")
        if name not in FUNCS:
            raise self.error(tok, f"function {name!r} not defined (allowed: {', '.join(sorted(FUNCS))})")
        return Ident(name)

    def number(self, tok: Token) -> int | float:
        if tok.kind == "char":
            return int(tok.value)
        text = tok.value
        try:
            return int(text, 0)
        except ValueError:
            pass
        try:
            if text.lower().lstrip("+-").startswith("0x") or "_" in text:
                raise ValueError
            return float(text)
        except ValueError:
            raise self.error(tok, f"bad number syntax: {text!r}") from None


def _describe(tok: Token) -> str:
    if tok.kind == "eof":
        return "end of template"
    if tok.kind == "right":
        return '"}}"'
    return f"{tok.value!r}"


def show(op: Operand) -> str:
    """An operand as the template spells it (`.Spec.Type`, `$x.y`, a literal)."""
    if isinstance(op, Field):
        return "." + ".".join(op.names)
    if isinstance(op, Variable):
        return op.name + "".join("." + n for n in op.names)
    if isinstance(op, Literal):
        return repr(op.value) if op.value is not None else "nil"
    return "(...)"


def parse(text: str) -> tuple[Node, ...]:
    """The checked tree of a template's main part (TemplateError naming line:column when it does not parse)."""
    return parse_program(text).main


def parse_program(text: str, main_name: str = "endpoint") -> Program:
    """The checked trees of a template and of the templates it defines; the main one is `main_name` (what
    external-dns calls its template: a `{{define "endpoint"}}` is that template when nothing else is)."""
    return Parser(text).program(main_name)


__all__ = ["LAZY", "Action", "Break", "Command", "Continue", "Control", "Field", "Ident", "Literal", "Node",
           "Operand", "Paren", "Pipeline", "Program", "TemplateCall", "Text", "Variable", "parse", "parse_program"]
