"""CPython as the judge of the syntax gate (run by core/tests/gate_cpython.rs with the reference interpreter).

    judge.py paths                  print the standard library folder and site-packages as JSON
    judge.py snippets               print the code snippets of CPython's own syntax tests as JSON
    judge.py verdicts < sources     print compile()'s verdict on each source of a JSON list
    judge.py timing < sources       print the seconds compile() took over the sources of a JSON list (best of 3)

A verdict is {"ok": true} or {"ok": false, "type", "msg", "line", "col", "stage"}, where stage is "parse" when
ast.parse already refuses the source and "compile" when only compile() does. Sources are compiled as UTF-8 bytes,
as when a file is run, so encoding declarations count.
"""

import ast
import doctest
import json
import os
import sys
import sysconfig
import textwrap
import time
import warnings

# Lib/test files holding syntax tests, and the calls whose string arguments are code.
TEST_FILES = [
    "test_syntax.py", "test_grammar.py", "test_fstring.py", "test_exceptions.py", "test_eof.py", "test_patma.py",
    "test_type_params.py", "test_positional_only_arg.py", "test_named_expressions.py", "test_except_star.py",
    "test_pep646_syntax.py", "test_string_literals.py", "test_keywordonlyarg.py", "test_genexps.py",
    "test_coroutines.py", "test_global.py", "test_scope.py", "test_compile.py", "test_flufl.py", "test_with.py",
    "test_unpack_ex.py", "test_unpack.py", "test_ast.py", "test_source_encoding.py", "test_utf8source.py",
    "test_listcomps.py", "test_setcomps.py", "test_dictcomps.py", "test_future_stmt/test_future.py",
    "test_generators.py", "test_type_aliases.py", "test_typing.py",
]
CODE_CALLS = {
    "compile", "exec", "eval", "check_syntax_error", "_check_error", "assertAllRaise", "check",
    "assert_syntax_error", "check_invalid", "assertRaisesSyntaxError", "_check_content", "parse",
    "assertInvalidSingle", "compile_single", "_checkeval", "dedent", "literal_eval", "_exec_future",
    "check_syntax_warning", "assertSyntaxError", "_check_compile",
}
RAISES_CALLS = {"assertRaises", "assertRaisesRegex"}


def call_name(node):
    f = node.func
    return f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")


def strings_in(node):
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        yield node.value
    elif isinstance(node, (ast.List, ast.Tuple)):
        for elt in node.elts:
            yield from strings_in(elt)


def snippets_of(path):
    try:
        source = open(path, encoding="utf-8").read()
        tree = ast.parse(source)
    except (SyntaxError, UnicodeDecodeError, ValueError):
        return
    parser = doctest.DocTestParser()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = call_name(node)
            args = list(node.args)
            if name in CODE_CALLS:
                for arg in args:
                    yield from strings_in(arg)
            elif name in RAISES_CALLS and args and getattr(args[0], "id", "") in ("SyntaxError", "IndentationError", "TabError"):
                for arg in args[2:]:
                    yield from strings_in(arg)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and ">>> " in node.value:
            try:
                for example in parser.get_examples(node.value):
                    yield example.source
            except ValueError:
                pass


def snippets():
    test_dir = os.path.join(sysconfig.get_paths()["stdlib"], "test")
    seen = set()
    out = []
    for name in TEST_FILES:
        path = os.path.join(test_dir, name)
        if not os.path.exists(path):
            continue
        for s in snippets_of(path):
            variants = [s]
            dedented = textwrap.dedent(s)
            if dedented != s:
                variants.append(dedented)
            for v in variants:
                if v in seen or not v.strip():
                    continue
                try:
                    v.encode("utf-8")
                except UnicodeEncodeError:
                    continue
                seen.add(v)
                out.append({"origin": name, "source": v})
    for root, _, files in os.walk(test_dir):
        for f in sorted(files):
            if f.startswith("badsyntax") and f.endswith(".py"):
                try:
                    v = open(os.path.join(root, f), encoding="utf-8").read()
                except (UnicodeDecodeError, OSError):
                    continue
                if v not in seen:
                    seen.add(v)
                    out.append({"origin": f, "source": v})
    return out


def verdict(source):
    data = source.encode("utf-8")
    try:
        ast.parse(data)
    except (SyntaxError, ValueError, MemoryError, RecursionError) as e:
        return describe(e, "parse")
    try:
        compile(data, "<gate>", "exec")
    except (SyntaxError, ValueError, MemoryError, RecursionError) as e:
        return describe(e, "compile")
    return {"ok": True}


def describe(e, stage):
    return {
        "ok": False,
        "type": type(e).__name__,
        "msg": getattr(e, "msg", None) or str(e),
        "line": getattr(e, "lineno", None),
        "col": getattr(e, "offset", None),
        "stage": stage,
    }


def main():
    warnings.simplefilter("ignore")
    sys.setrecursionlimit(10000)
    mode = sys.argv[1]
    if mode == "paths":
        paths = sysconfig.get_paths()
        json.dump({"stdlib": paths["stdlib"], "purelib": paths["purelib"], "version": sys.version}, sys.stdout)
    elif mode == "snippets":
        json.dump(snippets(), sys.stdout)
    elif mode == "verdicts":
        sources = json.load(sys.stdin)
        json.dump([verdict(s) for s in sources], sys.stdout)
    elif mode == "timing":
        sources = [s.encode("utf-8", "surrogatepass") for s in json.load(sys.stdin)]
        best = float("inf")
        for _ in range(3):
            start = time.perf_counter()
            for data in sources:
                try:
                    compile(data, "<gate>", "exec")
                except (SyntaxError, ValueError, MemoryError, RecursionError):
                    pass
            best = min(best, time.perf_counter() - start)
        json.dump(best, sys.stdout)


if __name__ == "__main__":
    main()
