#!/usr/bin/env python3
"""The oracle of "the same GraphQL operation": graphql-core's parser.

Reads the documents in Tests/Fixtures/graphql/queries, makes pairs of each with variants of it (reformatted,
fields reordered, changed in one place, cut or with a stray character), and prints them as JSON with graphql-core's
verdicts: whether each text parses as an executable document, and whether the two are the same operation (their
ASTs equal once the items of every selection set are sorted and fragment definitions are in name order). The
variants come from a fixed seed, so every run judges the same pairs.

    python3 Tests/Fixtures/graphql_oracle.py [SEED] > pairs.json
"""
import json
import pathlib
import random
import sys

from graphql import GraphQLSyntaxError, parse, print_ast
from graphql.language import ast
from graphql.language.lexer import Lexer
from graphql.language.source import Source
from graphql.language.token_kind import TokenKind

QUERIES = pathlib.Path(__file__).resolve().parent / "graphql" / "queries"


def document(text):
    """The parsed executable document, or None when graphql-core refuses it or it holds type system definitions."""
    try:
        parsed = parse(text, no_location=True)
    except GraphQLSyntaxError:
        return None
    executable = (ast.OperationDefinitionNode, ast.FragmentDefinitionNode)
    if not all(isinstance(definition, executable) for definition in parsed.definitions):
        return None
    return parsed


def normalized(node):
    """The AST as plain values, with what does not change the operation taken out."""
    if isinstance(node, ast.Node):
        members = {"kind": node.kind}
        for key in node.keys:
            if key in ("loc", "block"):  # where it was, and how a string was spelt
                continue
            members[key] = normalized(getattr(node, key))
        if isinstance(node, ast.SelectionSetNode):
            members["selections"] = sorted(members["selections"], key=repr)
        if isinstance(node, ast.DocumentNode):
            definitions = members["definitions"]
            operations = [d for d in definitions if d["kind"] == "operation_definition"]
            fragments = sorted((d for d in definitions if d["kind"] == "fragment_definition"), key=lambda d: d["name"]["value"])
            members["definitions"] = operations + fragments
        return members
    if isinstance(node, (list, tuple)):
        return [normalized(item) for item in node]
    if hasattr(node, "value") and not isinstance(node, (str, int, float, bool)):
        return str(node.value)  # enums such as OperationType
    return node


def tokens(text):
    """The raw text of each token, in order (ignored tokens left out)."""
    lexer = Lexer(Source(text))
    found = []
    while True:
        token = lexer.advance()
        if token.kind == TokenKind.EOF:
            return found
        found.append(text[token.start:token.end])


def reformatted(text, rng):
    """The same tokens with other whitespace, commas and comments between them."""
    separators = [" ", "\n", ",", "\t", " , ", "\r\n  ", " # a comment, with { braces }\n", "\n\n", ",,\n"]
    return "\ufeff" * rng.randint(0, 1) + "".join(token + rng.choice(separators) for token in tokens(text))


def walk(node, visit):
    visit(node)
    for key in getattr(node, "keys", []):
        value = getattr(node, key, None)
        if isinstance(value, ast.Node):
            walk(value, visit)
        elif isinstance(value, (list, tuple)):
            for item in value:
                if isinstance(item, ast.Node):
                    walk(item, visit)


def nodes_of(parsed, kind):
    found = []
    walk(parsed, lambda node: found.append(node) if isinstance(node, kind) else None)
    return found


def shuffled(text, rng):
    """The same document with every selection set's items and the fragment definitions in another order."""
    parsed = parse(text, no_location=True)
    for selection_set in nodes_of(parsed, ast.SelectionSetNode):
        items = list(selection_set.selections)
        rng.shuffle(items)
        selection_set.selections = tuple(items)
    operations = [d for d in parsed.definitions if isinstance(d, ast.OperationDefinitionNode)]
    fragments = [d for d in parsed.definitions if isinstance(d, ast.FragmentDefinitionNode)]
    rng.shuffle(fragments)
    parsed.definitions = tuple(operations + fragments)
    return print_ast(parsed)


def changed(text, rng):
    """The document changed in one place that matters; None when it has no such place of the kind drawn."""
    parsed = parse(text, no_location=True)
    fields = nodes_of(parsed, ast.FieldNode)
    kind = rng.choice(["rename", "alias", "argument", "drop", "directive", "swap", "operation", "type", "value"])
    if kind == "rename" and fields:
        field = rng.choice(fields)
        field.name = ast.NameNode(value=field.name.value + "X")
    elif kind == "alias" and fields:
        field = rng.choice(fields)
        field.alias = None if field.alias else ast.NameNode(value="renamed")
    elif kind == "argument" and fields:
        field = rng.choice(fields)
        field.arguments = tuple(field.arguments or ()) + (ast.ArgumentNode(name=ast.NameNode(value="extra"), value=ast.IntValueNode(value="1")),)
    elif kind == "drop":
        sets = [s for s in nodes_of(parsed, ast.SelectionSetNode) if len(s.selections) > 1]
        if not sets:
            return None
        selection_set = rng.choice(sets)
        items = list(selection_set.selections)
        items.pop(rng.randrange(len(items)))
        selection_set.selections = tuple(items)
    elif kind == "directive" and fields:
        field = rng.choice(fields)
        skip = ast.DirectiveNode(name=ast.NameNode(value="skip"), arguments=(ast.ArgumentNode(name=ast.NameNode(value="if"), value=ast.BooleanValueNode(value=True)),))
        field.directives = tuple(field.directives or ()) + (skip,)
    elif kind == "swap":
        candidates = [f for f in fields if f.arguments and len(f.arguments) > 1 and f.arguments[0].name.value != f.arguments[1].name.value]
        if not candidates:
            return None
        field = rng.choice(candidates)
        arguments = list(field.arguments)
        arguments[0], arguments[1] = arguments[1], arguments[0]
        field.arguments = tuple(arguments)
    elif kind == "operation":
        operations = [d for d in parsed.definitions if isinstance(d, ast.OperationDefinitionNode) and d.name]
        if not operations:
            return None
        operation = rng.choice(operations)
        operation.name = ast.NameNode(value=operation.name.value + "2")
    elif kind == "type":
        conditions = [n for n in nodes_of(parsed, (ast.InlineFragmentNode, ast.FragmentDefinitionNode)) if n.type_condition]
        if not conditions:
            return None
        rng.choice(conditions).type_condition = ast.NamedTypeNode(name=ast.NameNode(value="Other"))
    elif kind == "value":
        values = nodes_of(parsed, (ast.IntValueNode, ast.StringValueNode))
        if not values:
            return None
        value = rng.choice(values)
        value.value = value.value + ("0" if isinstance(value, ast.IntValueNode) else "!")
    else:
        return None
    return print_ast(parsed)


def broken(text, rng):
    """The text cut short, or with a character put in somewhere; graphql-core decides whether it still parses."""
    if rng.random() < 0.5:
        return text[: rng.randrange(len(text))]
    position = rng.randrange(len(text) + 1)
    return text[:position] + rng.choice(list('{}()[]$@!:="#.,x0-') + ['"""', "...", "\\u"]) + text[position:]


def main():
    rng = random.Random(int(sys.argv[1]) if len(sys.argv) > 1 else 27)
    pairs = []
    for path in sorted(QUERIES.glob("*.graphql")):
        text = path.read_text()
        variants = [("itself", text)]
        if document(text) is not None:
            variants += [("reformatted", reformatted(text, rng)) for _ in range(3)]
            variants += [("shuffled", shuffled(text, rng)) for _ in range(3)]
            variants += [("shuffled and reformatted", reformatted(shuffled(text, rng), rng)) for _ in range(2)]
            variants += [("changed", variant) for variant in (changed(text, rng) for _ in range(12)) if variant is not None]
        variants += [("broken", broken(text, rng)) for _ in range(12)]
        for kind, variant in variants:
            first, second = document(text), document(variant)
            same = first is not None and second is not None and normalized(first) == normalized(second)
            pairs.append({
                "file": path.name, "kind": kind, "a": text, "b": variant,
                "aParses": first is not None, "bParses": second is not None, "same": same,
            })
    json.dump(pairs, sys.stdout, ensure_ascii=False)


if __name__ == "__main__":
    main()
