"""The Python side of the playground's in-tab runner (loaded by python-worker.mjs into a private namespace).

`run(argv)` runs a `python3 ...` command line on the snapshot under /repo the way CPython would run it as a fresh
process: the script or module runs as `__main__` with the repository root as the working directory and on
`sys.path`, `SystemExit` gives the exit code, an uncaught exception prints its traceback to stderr and gives 1, and
`atexit` handlers run at the end. The interpreter itself is reused between runs, so `reset()` first puts back what
a run may have changed: imported modules, `sys.path`, `sys.argv`, the environment, the streams, the working
directory and the files.
"""

import atexit
import importlib
import importlib.util
import os
import re
import runpy
import shutil
import sys
import traceback
import warnings

REPO = "/repo"
TMP = "/tmp/acr-run"
HARNESS_FILES = {"<acr-tab>", runpy.__file__}
ENVIRONMENT = {
    "HOME": "/home/pyodide",
    "TMPDIR": TMP,
    "PYTHONPATH": REPO,
    "PYTHONDONTWRITEBYTECODE": "1",
    "PYTHONUNBUFFERED": "1",
    "LANG": "C.UTF-8",
}
USAGE = "usage: python3 [-BsuEI] [-W arg] (-c cmd | -m mod | file) [arg] ..."

_base = {}


async def install(wheel_names, requirements, index_url, micropip_wheel):
    """Installs dropped wheels, then requirements with micropip; returns what was installed and what failed."""
    before = set(sys.modules)
    try:
        return await _install(wheel_names, requirements, index_url, micropip_wheel)
    finally:
        # What installing imported (the installer, zip and metadata support) is not part of a fresh interpreter.
        for name in set(sys.modules) - before:
            del sys.modules[name]


async def _install(wheel_names, requirements, index_url, micropip_wheel):
    import zipfile
    from importlib import metadata

    site = next(p for p in sys.path if p.endswith("site-packages"))
    failed = []
    for name in wheel_names:
        path = f"/tmp/acr-wheels/{name}"
        try:
            with zipfile.ZipFile(path) as wheel:
                wheel.extractall(site)
        except Exception as e:  # a damaged or non-zip file
            failed.append({"requirement": name, "reason": f"not a readable wheel ({e})"})
    importlib.invalidate_caches()
    have = {_canonical(d.metadata["Name"]) for d in metadata.distributions()}
    wanted = [r for r in requirements if _canonical(_requirement_name(r)) not in have]
    if wanted and not micropip_wheel:
        failed += [{"requirement": r, "reason": "the package installer could not be loaded"} for r in wanted]
        wanted = []
    if wanted:
        failed += await _micropip(wanted, index_url, micropip_wheel)
    installed = sorted(
        ({"name": d.metadata["Name"], "version": d.version, "source": _source(d)} for d in metadata.distributions()),
        key=lambda p: p["name"].lower(),
    )
    return {"installed": installed, "failed": failed}


async def _micropip(requirements, index_url, micropip_wheel):
    """Installs requirements one by one (so one failure does not hide the others); returns the failures."""
    import zipfile
    from importlib import metadata

    private = "/tmp/acr-micropip"
    with zipfile.ZipFile(micropip_wheel) as wheel:
        wheel.extractall(private)
    sys.path.insert(0, private)
    failed = []
    try:
        import micropip
        from micropip._compat import LOCKFILE_PACKAGES

        index = [index_url] if index_url else ["https://pypi.org/simple/{package_name}/"]
        for requirement in requirements:
            try:
                await micropip.install(requirement, index_urls=index)
            except Exception as e:
                failed.append({"requirement": requirement, "reason": _install_reason(str(e))})
                continue
            # Pyodide's package loader reports a failed download on the console rather than raising. (A requirement
            # with an environment marker may rightly install nothing.)
            if ";" in requirement:
                continue
            name = _canonical(_requirement_name(requirement))
            importlib.invalidate_caches()
            if name not in {_canonical(d.metadata["Name"]) for d in metadata.distributions()}:
                if name in LOCKFILE_PACKAGES:
                    reason = (
                        "neither the package index nor Pyodide's CDN (which has its build of it) could be reached "
                        "(offline?); drop its wheel instead"
                    )
                else:
                    reason = "the installer reported no error but the package is not there"
                failed.append({"requirement": requirement, "reason": reason})
    finally:
        sys.path.remove(private)
        shutil.rmtree(private, ignore_errors=True)
    return failed


def _install_reason(message):
    """micropip's error, in words a user can act on."""
    if "Can't find a pure Python 3 wheel" in message:
        return "it has compiled code and no build for the browser (no pure-Python wheel, not built by Pyodide)"
    if "Can't fetch metadata" in message or "Failed to fetch" in message or "NetworkError" in message:
        return "the package index could not be reached (offline?) or does not have it; drop its wheel instead"
    return message.strip().splitlines()[-1] if message.strip() else "unknown error"


def _requirement_name(requirement):
    requirement = requirement.strip()
    if requirement.endswith(".whl") and "/" in requirement:  # a wheel's URL: name-version-...whl
        return requirement.rsplit("/", 1)[-1].split("-")[0]
    return re.split(r"[\s\[<>=!~;@(]", requirement, maxsplit=1)[0]


def _canonical(name):
    return re.sub(r"[-_.]+", "-", name or "").lower()


def _source(dist):
    try:
        installer = (dist.read_text("INSTALLER") or "").strip()
    except Exception:
        installer = ""
    return installer or "dropped wheel"


def baseline():
    """Records the state every run starts from; called once, after set-up, before any user code."""
    os.makedirs(TMP, exist_ok=True)
    os.makedirs(ENVIRONMENT["HOME"], exist_ok=True)
    sys.dont_write_bytecode = True
    _base["modules"] = set(sys.modules)
    _base["main"] = sys.modules["__main__"]
    _base["path"] = [p for p in sys.path if p not in ("", REPO)]
    _base["meta_path"] = list(sys.meta_path)
    _base["path_hooks"] = list(sys.path_hooks)
    _base["excepthook"] = sys.excepthook
    _base["displayhook"] = sys.displayhook
    _base["recursion"] = sys.getrecursionlimit()
    _base["filters"] = list(warnings.filters)
    _base["stdin"] = sys.stdin


def reset():
    """Puts the interpreter back as `baseline()` found it and empties the repository and temporary folders."""
    for name in list(sys.modules):
        if name not in _base["modules"]:
            del sys.modules[name]
    sys.modules["__main__"] = _base["main"]
    sys.path[:] = _base["path"]
    sys.meta_path[:] = _base["meta_path"]
    sys.path_hooks[:] = _base["path_hooks"]
    sys.path_importer_cache.clear()
    sys.excepthook = _base["excepthook"]
    sys.displayhook = _base["displayhook"]
    sys.setrecursionlimit(_base["recursion"])
    warnings.filters[:] = _base["filters"]
    getattr(warnings, "_filters_mutated", lambda: None)()
    os.chdir("/")
    os.environ.clear()
    os.environ.update(ENVIRONMENT)
    for folder in (REPO, TMP):
        shutil.rmtree(folder, ignore_errors=True)
        os.makedirs(folder)
    atexit._clear()
    importlib.invalidate_caches()


def _streams():
    """Fresh unbuffered text streams over file descriptors 1 and 2, as `PYTHONUNBUFFERED=1` gives."""
    import io

    def stream(fd, errors):
        raw = io.FileIO(fd, "w", closefd=False)
        return io.TextIOWrapper(raw, encoding="utf-8", errors=errors, write_through=True)

    sys.stdout = sys.__stdout__ = stream(1, "strict")
    sys.stderr = sys.__stderr__ = stream(2, "backslashreplace")
    sys.stdin = _base["stdin"]


def run(argv):
    """Runs `argv` (`python3 [options] (file | -m module | -c command) [args]`); returns the exit code, or None
    when CPython would end by a signal (an uncaught KeyboardInterrupt)."""
    _streams()
    os.chdir(REPO)
    try:
        target, args = _parse(argv[1:])
    except _Usage as e:
        print(f"{e}\n{USAGE}", file=sys.stderr)
        return 2
    kind, value = target
    if kind == "file" and not os.path.exists(value):
        full = os.path.join(REPO, value)
        print(f"{argv[0]}: can't open file {full!r}: [Errno 2] No such file or directory", file=sys.stderr)
        return 2
    # CPython's sys.path: the script's folder (or the working directory), then PYTHONPATH, then the rest.
    first = os.path.dirname(os.path.abspath(value)) if kind == "file" else REPO
    sys.path[:] = [first] + ([REPO] if first != REPO else []) + _base["path"]
    code = 0
    try:
        if kind == "file":
            sys.argv = [value] + args
            _run_file(value)
        elif kind == "module":
            sys.argv = ["-m"] + args
            runpy._run_module_as_main(value, alter_argv=True)
        else:
            sys.argv = ["-c"] + args
            main = type(sys)("__main__")
            sys.modules["__main__"] = main
            exec(compile(value, "<string>", "exec"), main.__dict__)
    except SystemExit as e:
        code = _exit_code(e)
    except KeyboardInterrupt as e:
        # CPython re-raises SIGINT on itself: the process ends by a signal, with no exit code.
        code = None
        _print_uncaught(e)
    except BaseException as e:  # noqa: B036 (an uncaught exception ends the process, whatever it is)
        code = 1
        _print_uncaught(e)
    code = _at_exit(code)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            code = 120 if code == 0 else code
    return code


def _run_file(path):
    """Runs a script in a fresh `__main__` module, as CPython does (a folder or zip goes through runpy)."""
    full = os.path.abspath(path)
    if not os.path.isfile(full):
        runpy.run_path(full, run_name="__main__")
        return
    with open(full, "rb") as f:
        source = f.read()
    main = type(sys)("__main__")
    main.__file__ = full
    main.__cached__ = None
    main.__builtins__ = __builtins__
    sys.modules["__main__"] = main
    exec(compile(source, full, "exec"), main.__dict__)


def missing_modules(output):
    """Modules a run could not import that are neither in the repository nor installed: [(name, kind)], where kind
    is `stdlib` (left out of Python in the browser) or `package` (not installed in this tab)."""
    found = []
    for name in dict.fromkeys(re.findall(r"No module named '([\w.]+)'", output)):
        top = name.split(".")[0]
        if top in sys.stdlib_module_names:
            found.append((name, "stdlib"))
        elif importlib.util.find_spec(top) is None:
            found.append((name, "package"))
    return found


def _at_exit(code):
    """Runs the atexit handlers as the interpreter does at exit: their exceptions, `SystemExit` included, are
    printed as ignored and leave the exit code alone."""
    try:
        atexit._run_exitfuncs()
    finally:
        atexit._clear()
    return code


class _Usage(Exception):
    pass


def _parse(args):
    """Splits CPython's options from the target; returns ((kind, value), remaining arguments)."""
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in ("-c", "-m"):
            if i + 1 >= len(args):
                raise _Usage(f"Argument expected for the {arg} option")
            return ("command" if arg == "-c" else "module", args[i + 1]), args[i + 2 :]
        if arg.startswith("-c") or arg.startswith("-m"):
            return ("command" if arg[1] == "c" else "module", arg[2:]), args[i + 1 :]
        if arg in ("-W", "-X"):
            i += 2
            continue
        if arg.startswith("-W") or arg.startswith("-X"):
            i += 1
            continue
        if arg == "--":
            i += 1
            break
        if arg.startswith("-") and len(arg) > 1:
            for flag in arg[1:]:
                if flag not in "BsuEIqOSdv":
                    raise _Usage(f"Unknown option: -{flag}")
            i += 1
            continue
        break
    if i >= len(args):
        raise _Usage("no script, module or command given (the interactive interpreter is not available)")
    return ("file", args[i]), args[i + 1 :]


def _exit_code(e):
    """The process exit status CPython gives for `SystemExit(e.code)`."""
    value = e.code
    if value is None:
        return 0
    if isinstance(value, int):
        return value & 0xFF
    try:
        print(value, file=sys.stderr)
    except Exception:
        pass
    return 1


def _print_uncaught(e):
    """Prints an uncaught exception with `sys.excepthook`, without the runner's own frames."""
    tb = e.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename in HARNESS_FILES:
        tb = tb.tb_next
    try:
        sys.excepthook(type(e), e, tb)
    except Exception:
        traceback.print_exception(type(e), e, tb)
