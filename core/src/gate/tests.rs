//! The gate's rules, each with CPython 3.12's verdict (message, line, column) as `compile()` gives it. The
//! differential tests (`core/tests/gate_cpython.rs`) compare with CPython itself on thousands of sources.

use super::*;

fn problem(src: &str) -> Option<SyntaxProblem> {
    check(src).err()
}

/// `(source, line, column, kind, CPython's message)`.
type Case = (&'static str, u32, u32, ProblemKind, &'static str);

fn assert_cases(cases: &[Case]) {
    for &(src, line, column, kind, message) in cases {
        let got = problem(src);
        let want = SyntaxProblem { line, column, kind, message: message.to_string() };
        assert_eq!(got.as_ref(), Some(&want), "source: {src:?}");
    }
}

#[test]
fn valid_sources_pass() {
    for src in [
        "",
        "x = 1",
        "def f(x):\n    return x + 1\n",
        // A continuation line after `.` inside brackets, dedented below its block (tree-sitter's scanner emitted
        // a DEDENT here).
        "def f():\n    (bar.\nbaz)\n",
        // Lone carriage returns end lines.
        "x = 1\ry = 2\r",
        // A backslash on a whitespace-only line, then a blank line.
        "x = 1\n   \\\n\ny = 2\n",
        // A starred target holding a tuple or a list.
        "a, *(b, c) = seq\n",
        "[a, *[b, c]] = seq\n",
        // A replacement field over several lines in a single-quoted f-string (3.12).
        "f'{a +\n b}'\n",
        "f'{x # a comment\n}'\n",
        "f\"{'nested' + f'{1}'}\"\n",
        "match = 1\ncase = 2\ntype = 3\n_ = 4\n",
        "def f[T: int, *Ts, **P](x: T) -> T:\n    return x\n",
        "type Alias[T] = list[T]\n",
        "match p:\n    case Point(x=0, y=0) | [0, 0]:\n        pass\n    case {'k': v, **rest}:\n        pass\n    case _:\n        pass\n",
        "async def f():\n    async with a as b, c:\n        async for x in y:\n            await z\n    return [i async for i in g()]\n",
        "try:\n    pass\nexcept* (A, B) as e:\n    pass\n",
        "with (open(a) as f, open(b) as g):\n    pass\n",
        "def f(a, /, b, *, c):\n    pass\n",
        "print(*a if b else c)\n",
        "x = 1if y else 2\n",
        "# -*- coding: latin-1 -*-\nx = 1\n",
        "\u{feff}x = 1\n",
        "def f():\n    x = [y for y in (yield)]\n",
        "def f():\n    return (await x for x in y)\n",
        "from __future__ import annotations\ndef f(x: (yield)) -> int: ...\n",
        "a[*b] = 1\n",
        "def f(*args: *Ts): pass\n",
    ] {
        assert_eq!(problem(src), None, "source: {src:?}");
    }
}

/// Found by the `syntax_gate` fuzz target (its own line count was wrong, not the gate): lines ended by lone carriage
/// returns count as CPython counts them, so a problem can lie past the last `\n`.
#[test]
fn a_problem_after_lone_carriage_returns_is_on_cpythons_line() {
    let got = problem("x = 1\r\r\r$ = 2\r").expect("`$` is not Python");
    assert_eq!((got.line, got.column), (4, 1));
}

#[test]
fn compiler_stage_errors_are_reported_with_cpython_messages() {
    use ProblemKind::Compile;
    assert_cases(&[
        ("x = 1\nreturn x\n", 2, 1, Compile, "'return' outside function"),
        ("class A:\n    return 1\n", 2, 5, Compile, "'return' outside function"),
        ("yield 1\n", 1, 1, Compile, "'yield' outside function"),
        ("for x in y:\n    pass\nbreak\n", 3, 1, Compile, "'break' outside loop"),
        ("while x:\n    def f():\n        break\n", 3, 9, Compile, "'break' outside loop"),
        ("continue\n", 1, 1, Compile, "'continue' not properly in loop"),
        ("f(a=1, b=2, a=3)\n", 1, 13, Compile, "keyword argument repeated: a"),
        ("def f():\n    await g()\n", 2, 5, Compile, "'await' outside async function"),
        ("await g()\n", 1, 1, Compile, "'await' outside function"),
        ("async def f():\n    yield 1\n    return 2\n", 3, 5, Compile, "'return' with value in async generator"),
        ("async def f():\n    yield from x\n", 2, 5, Compile, "'yield from' inside async function"),
        (
            "def f():\n    return [await x for x in y]\n",
            2,
            12,
            Compile,
            "asynchronous comprehension outside of an asynchronous function",
        ),
        ("def f():\n    async for x in y: pass\n", 2, 5, Compile, "'async for' outside async function"),
        ("__debug__ = 1\n", 1, 1, Compile, "cannot assign to __debug__"),
        ("def f(**__debug__): pass\n", 1, 9, Compile, "cannot assign to __debug__"),
        ("x = *a\n", 1, 5, Compile, "can't use starred expression here"),
        ("*a = 1\n", 1, 1, Compile, "starred assignment target must be in a list or tuple"),
        ("*a, *b = 1\n", 1, 1, Compile, "multiple starred expressions in assignment"),
        ("try:\n    pass\nexcept:\n    pass\nexcept E:\n    pass\n", 3, 1, Compile, "default 'except:' must be last"),
        (
            "for x in y:\n    try:\n        pass\n    except* E:\n        break\n",
            5,
            9,
            Compile,
            "'break', 'continue' and 'return' cannot appear in an except* block",
        ),
        (
            "match x:\n    case _:\n        pass\n    case 1:\n        pass\n",
            2,
            10,
            Compile,
            "wildcard makes remaining patterns unreachable",
        ),
        ("match x:\n    case [a, a]:\n        pass\n", 2, 14, Compile, "multiple assignments to name 'a' in pattern"),
        ("match x:\n    case [a] | b:\n        pass\n", 2, 10, Compile, "alternative patterns bind different names"),
        (
            "match x:\n    case {0: a, 0.0: b}:\n        pass\n",
            2,
            10,
            Compile,
            "mapping pattern checks duplicate key (0.0)",
        ),
        ("from __future__ import braces\n", 1, 1, Compile, "not a chance"),
        (
            "x = 1\nfrom __future__ import annotations\n",
            2,
            1,
            Compile,
            "from __future__ imports must occur at the beginning of the file",
        ),
    ]);
}

/// The two last disagreements with CPython 3.12's symbol table: a method may name the class's implicit cell
/// (`nonlocal __class__`, as Lib/test/test_super.py does), and `nonlocal` may not name a type parameter.
#[test]
fn nonlocal_follows_cpython_on_class_cells_and_type_parameters() {
    for src in [
        "class A:\n    def f(self):\n        nonlocal __class__\n",
        "class A:\n    def f(self):\n        def g():\n            nonlocal __class__\n            __class__ = 1\n        return g\n",
        "def f[T]():\n    T = 1\n    def g():\n        nonlocal T\n",
    ] {
        assert_eq!(problem(src), None, "{src}");
    }
    assert_cases(&[(
        "def f[T]():\n    def g():\n        nonlocal T\n",
        3,
        9,
        ProblemKind::Compile,
        "nonlocal binding not allowed for type parameter 'T'",
    )]);
}

#[test]
fn symbol_table_errors_are_reported() {
    use ProblemKind::Compile;
    assert_cases(&[
        ("nonlocal x\n", 1, 1, Compile, "nonlocal declaration not allowed at module level"),
        ("def f():\n    nonlocal x\n", 2, 5, Compile, "no binding for nonlocal 'x' found"),
        ("def f(x):\n    global x\n", 2, 5, Compile, "name 'x' is parameter and global"),
        ("def f():\n    print(x)\n    global x\n", 3, 5, Compile, "name 'x' is used prior to global declaration"),
        ("def f(a, a): pass\n", 1, 10, Compile, "duplicate argument 'a' in function definition"),
        ("def f[T, T]():\n    pass\n", 1, 10, Compile, "duplicate type parameter 'T'"),
        ("def f():\n    from os import *\n", 2, 20, Compile, "import * only allowed at module level"),
        ("x = [(yield) for y in z]\n", 1, 7, Compile, "'yield' inside list comprehension"),
        ("type X[T: (yield)] = int\n", 1, 12, Compile, "yield expression cannot be used within a TypeVar bound"),
        (
            "[x for x in y if (x := 1)]\n",
            1,
            19,
            Compile,
            "assignment expression cannot rebind comprehension iteration variable 'x'",
        ),
        ("class A:\n    def f(self):\n        nonlocal __x\n", 3, 9, Compile, "no binding for nonlocal '_A__x' found"),
    ]);
}

#[test]
fn grammar_families_are_as_strict_as_cpython() {
    use ProblemKind::Syntax;
    assert_cases(&[
        // Parameter order, `/` and `*`.
        ("def f(a=1, b):\n    pass\n", 1, 12, Syntax, "parameter without a default follows parameter with a default"),
        ("lambda x=1, y: x\n", 1, 13, Syntax, "parameter without a default follows parameter with a default"),
        ("def f(a, /, b, /):\n    pass\n", 1, 16, Syntax, "/ may appear only once"),
        ("def f(*, a, *b):\n    pass\n", 1, 13, Syntax, "* argument may appear only once"),
        ("def f(*):\n    pass\n", 1, 7, Syntax, "named arguments must follow bare *"),
        // Number literals.
        ("x = 0_\n", 1, 6, Syntax, "invalid decimal literal"),
        (
            "x = 012\n",
            1,
            5,
            Syntax,
            "leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers",
        ),
        ("x = 0b102\n", 1, 9, Syntax, "invalid digit '2' in binary literal"),
        // Targets of `del` and assignments.
        ("del f()\n", 1, 5, Syntax, "cannot delete function call"),
        ("f() = 1\n", 1, 1, Syntax, "cannot assign to function call here. Maybe you meant '==' instead of '='?"),
        ("x + 1 += 2\n", 1, 1, Syntax, "'expression' is an illegal expression for augmented assignment"),
        ("with open(f) as g():\n    pass\n", 1, 17, Syntax, "cannot assign to function call"),
        // `except A, B:` and mixed `except`/`except*`.
        ("try:\n    pass\nexcept A, B:\n    pass\n", 3, 8, Syntax, "multiple exception types must be parenthesized"),
        (
            "try:\n    pass\nexcept A:\n    pass\nexcept* B:\n    pass\n",
            5,
            1,
            Syntax,
            "cannot have both 'except' and 'except*' on the same 'try'",
        ),
        // Walrus without parentheses where it is not allowed; `*` in slices and annotations.
        ("x := 1\n", 1, 3, Syntax, "invalid syntax"),
        ("def f(a := 1):\n    pass\n", 1, 9, Syntax, "invalid syntax"),
        ("x[a:*b]\n", 1, 5, Syntax, "invalid syntax"),
        ("def f(x: *int):\n    pass\n", 1, 10, Syntax, "invalid syntax"),
        // Call argument order.
        ("f(p, k=1, p2)\n", 1, 13, Syntax, "positional argument follows keyword argument"),
        ("f(**x, *y)\n", 1, 8, Syntax, "iterable argument unpacking follows keyword argument unpacking"),
        ("f(x for x in y, 1)\n", 1, 3, Syntax, "Generator expression must be parenthesized"),
        // Python 2.
        ("x = 1\nprint x\n", 2, 1, Syntax, "Missing parentheses in call to 'print'. Did you mean print(...)?"),
        ("raise E, \"m\"\n", 1, 8, Syntax, "invalid syntax"),
        // Escapes and bytes.
        ("b = b'caf\u{e9}'\n", 1, 5, Syntax, "bytes can only contain ASCII literal characters"),
        (
            "x = \"\\x4\"\n",
            1,
            5,
            Syntax,
            "(unicode error) 'unicodeescape' codec can't decode bytes in position 0-2: truncated \\xXX escape",
        ),
        ("x = 'a' b''\n", 1, 12, Syntax, "cannot mix bytes and nonbytes literals"),
        // Type parameters and f-strings.
        ("class C[T: int, *Ts: int]: pass\n", 1, 20, Syntax, "cannot use bound with TypeVarTuple"),
        ("print(f\"{x!z}\")\n", 1, 12, Syntax, "f-string: invalid conversion character 'z': expected 's', 'r', or 'a'"),
        ("f'{lambda x: 1}'\n", 1, 4, Syntax, "f-string: lambda expressions are not allowed without parentheses"),
        // Other specialised messages.
        ("x = [1, 2 3]\n", 1, 9, Syntax, "invalid syntax. Perhaps you forgot a comma?"),
        ("a if b\n", 1, 1, Syntax, "expected 'else' after 'if' expression"),
        ("import a.b as c.d\n", 1, 16, Syntax, "invalid syntax"),
        ("if x\n    pass\n", 1, 5, Syntax, "expected ':'"),
        ("def f(:\n    pass\n", 1, 7, Syntax, "invalid syntax"),
        ("x = (1,\ny = 2\n", 1, 5, Syntax, "'(' was never closed"),
        ("s = 'abc\n", 1, 5, Syntax, "unterminated string literal (detected at line 1)"),
        ("x = '''abc\n\ndef", 1, 5, Syntax, "unterminated triple-quoted string literal (detected at line 3)"),
        ("x = (1 2)\ny = \"abc\n", 2, 5, Syntax, "unterminated string literal (detected at line 2)"),
    ]);
}

#[test]
fn indentation_errors_are_cpython_s() {
    use ProblemKind::{Indentation, Tab};
    assert_cases(&[
        ("def f():\n    x = 1\n     y = 2\n", 3, 5, Indentation, "unexpected indent"),
        ("def f():\n    x = 1\n  y = 2\n", 3, 8, Indentation, "unindent does not match any outer indentation level"),
        ("if x:\npass\n", 2, 1, Indentation, "expected an indented block after 'if' statement on line 1"),
        ("try:\n    x = 1\ny = 2\n", 3, 1, ProblemKind::Syntax, "expected 'except' or 'finally' block"),
        ("if x:\n\ty = 1\n        z = 2\n", 3, 1, Tab, "inconsistent use of tabs and spaces in indentation"),
    ]);
}

#[test]
fn encoding_declarations_are_honoured() {
    let p = problem("# -*- coding: nope -*-\nx = 1\n").expect("an unknown encoding is refused");
    assert_eq!((p.kind, p.message.as_str()), (ProblemKind::Encoding, "unknown encoding: nope"));
    assert!(problem("x = 1\0\n").is_some_and(|p| p.kind == ProblemKind::Encoding));
}

#[test]
fn deep_nesting_is_refused_or_checked_without_crashing() {
    let parens = format!("x = {}1{}\n", "(".repeat(150), ")".repeat(150));
    assert_eq!(problem(&parens), None);
    let too_many = format!("x = {}1{}\n", "(".repeat(5000), ")".repeat(5000));
    assert_eq!(problem(&too_many).map(|p| p.message), Some("too many nested parentheses".into()));
    let mut ifs = String::new();
    for depth in 0..2500 {
        ifs.push_str(&" ".repeat(depth));
        ifs.push_str("if x:\n");
    }
    assert_eq!(problem(&ifs).map(|p| p.message), Some("too many levels of indentation".into()));
    let unary = format!("x = {}1\n", "-".repeat(100_000));
    assert!(problem(&unary).is_some_and(|p| p.kind == ProblemKind::TooComplex));
    let chain = format!("x = {}1\n", "1 + ".repeat(100_000));
    assert!(problem(&chain).is_some_and(|p| p.kind == ProblemKind::TooComplex));
}

#[test]
fn an_edit_is_judged_against_the_problem_the_file_already_had() {
    let old = "def f(:\n    pass\n\nx = 1\n";
    let mut gate = Gate::new();
    let ok = "def f(:\n    pass\n\nx = 2\n";
    let start = old.find("x = 1").unwrap();
    let edit = TextEdit { start, old_end: start + 6, new_end: start + 6 };
    assert_eq!(gate.check_edit(old, ok, edit), Ok(()));
    let valid_old = "x = 1\n";
    let broken = "x = (1\n";
    let edit = TextEdit { start: 0, old_end: 6, new_end: 7 };
    assert_eq!(gate.check_edit(valid_old, broken, edit), check(broken));
}
