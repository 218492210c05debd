"""Turn Arpeggio's "expected rule" lists into messages in ST terms.

A raw textX error lists regular expressions and internal rule names; users need
"expected ';' or operator, found 'END_IF'", plus a hint naming the unclosed IF when the
parser was waiting for its END_IF.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from stc.grammar.keywords import RESERVED
from stc.preprocess import line_col

_RULE_WORDS = {
    "ID": "identifier",
    "LITERAL": "literal",
    "INTEGER_TOKEN": "integer",
    "DIRECT_ADDRESS": "direct address (%IX0.0)",
    "BINARY_OP": "operator",
    "UNARY_OP": "expression",
    "ASSIGN_OP": "':='",
    "VAR_KIND": "VAR block",
    "VAR_QUALIFIER": "'CONSTANT' or 'RETAIN'",
    "STRING_KIND": "'STRING'",
    "POU_MODIFIER": "",
    "ELSIF_KEYWORD": "'ELSIF'",
    "OO_KEYWORD": "",
    "REJECTED_BLOCK": "",
    "EOF": "end of file",
    "POINTER_KEYWORD": "",
    "UNION_KEYWORD": "",
    "OPERATOR_FUNCTION": "",
    "BLOCK_END": "",
    "STATEMENT_KEYWORD": "",
}
_KEYWORD_IN_REGEX = re.compile(r"[A-Z][A-Z_]{1,}")
_MAX_ITEMS = 8
_EXPRESSION_STARTS = {"expression", "identifier", "literal", "'('", "direct address (%IX0.0)",
                      "'THIS'", "'SUPER'"}
_STATEMENT_STARTS = {"'IF'", "'CASE'", "'FOR'", "'WHILE'", "'REPEAT'", "'EXIT'", "'CONTINUE'",
                     "'RETURN'", "';'", "'JMP'", "':'"}
_QUIET_PATTERNS = ("[.\\[(^]",)  # the suffix look-ahead: not something a user "expects"

_BLOCKS = {"END_IF": "IF", "END_CASE": "CASE", "END_FOR": "FOR", "END_WHILE": "WHILE",
           "END_REPEAT": "REPEAT", "END_STRUCT": "STRUCT"}
_BLOCK_WORD = re.compile(
    r"""'(?:\$[^\n]|[^'$\n])*'?|"(?:\$[^\n]|[^"$\n])*"?"""
    r"|\b(?:END_IF|END_CASE|END_FOR|END_WHILE|END_REPEAT|END_STRUCT"
    r"|IF|CASE|FOR|WHILE|REPEAT|STRUCT)\b",
    re.IGNORECASE,
)
_TOKEN_AT = re.compile(r"\w+|\S")
# A keyword followed by one of these was most likely meant as a variable name.
_USED_AS_NAME = re.compile(r"\s*[:,.\[(;=<>+\-*/)&]")


def describe_rule(rule: object) -> str:
    """Name one expected Arpeggio match the way an ST programmer would."""
    name = getattr(rule, "rule_name", "") or ""
    if name in _RULE_WORDS:
        return _RULE_WORDS[name]
    to_match = getattr(rule, "to_match", None)
    if to_match is None:  # look-ahead predicates: nothing a user could type
        return ""
    if type(rule).__name__ == "StrMatch":
        return f"'{to_match.upper()}'"
    if to_match.startswith(":"):
        return "':'"
    if to_match in _QUIET_PATTERNS:
        return ""
    words = _KEYWORD_IN_REGEX.findall(to_match)
    if words:
        return " or ".join(f"'{w}'" for w in dict.fromkeys(words))
    return name


def expected_list(rules: Iterable[object]) -> list[str]:
    """Readable, de-duplicated expectations; expression and statement starts are folded."""
    items = [d for d in dict.fromkeys(describe_rule(r) for r in rules) if d]
    has = set(items)
    if "identifier" in has and has & _STATEMENT_STARTS:
        items = ["statement"] + [i for i in items if i not in _STATEMENT_STARTS | _EXPRESSION_STARTS]
    elif "identifier" in has and "literal" in has:
        items = ["expression"] + [i for i in items if i not in _EXPRESSION_STARTS]
    return items


def syntax_message(text: str, offset: int, rules: Iterable[object]) -> tuple[str, int]:
    """`syntax error: expected X or Y, found 'Z'` and the offset to report it at.

    Two refinements: a block that is still open when the parser meets an END_ keyword (or
    the end of the text) is reported at its opening keyword ("missing END_IF for the IF at
    line 7"), and a missing `;` is reported right after the previous token.
    """
    items = expected_list(rules)
    token = _TOKEN_AT.match(text, offset) if offset < len(text) else None
    found_word = token.group().upper() if token else ""
    found = f"'{token.group()}'" if token else "end of input"
    expected = _join(items)
    if not token or found_word.startswith("END_"):
        for end_kw, opener in _BLOCKS.items():
            open_at = unclosed_block(text, offset, opener) if f"'{end_kw}'" in items else None
            if open_at is not None:
                line, col = line_col(text, offset)
                where = f"at line {line}, column {col}" if token else ""
                return (
                    f"syntax error: missing {end_kw} for the {opener} at line "
                    f"{line_col(text, open_at)[0]} (expected {expected}, found {found} {where})"
                    .replace(" )", ")"),
                    open_at,
                )
    hint = ""
    if found_word in RESERVED and {"identifier", "statement", "expression"} & set(items) \
            and _USED_AS_NAME.match(text, token.end()):
        hint = f" ({token.group()} is a reserved keyword and cannot be used as a name)"
    if "';'" in items:
        before = len(text[:offset].rstrip())
        if "\n" in text[before:offset]:
            offset = before
    return f"syntax error: expected {expected}, found {found}{hint}", offset


def _join(items: list[str]) -> str:
    if len(items) > _MAX_ITEMS:
        items = items[:_MAX_ITEMS] + ["..."]
    if not items:
        return "something else"
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " or " + items[-1]


def unclosed_block(text: str, offset: int, opener: str) -> int | None:
    """Offset of the innermost `opener` still open at `offset`, if any."""
    closer = f"END_{opener}"
    stack: list[int] = []
    for m in _BLOCK_WORD.finditer(text, 0, offset):
        word = m.group().upper()
        if word == opener:
            stack.append(m.start())
        elif word == closer and stack:
            stack.pop()
    return stack[-1] if stack else None
