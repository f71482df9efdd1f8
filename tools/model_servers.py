#!/usr/bin/env python3
"""Starts and stops real OpenAI-compatible servers for tests and benches: llama.cpp's llama-server with the
SmolLM2-135M model, and a LiteLLM proxy (a fixed-answer model and a route to a llama-server).

    python3 tools/model_servers.py start llama [--model M] [--ctx N] [--no-jinja] [--api-key K] [--threads N]
                                         [--ignore-eos]
    python3 tools/model_servers.py start litellm [--llama-url URL] [--llama-key K] [--master-key K]
    python3 tools/model_servers.py prove llama [--binary PATH] [--model M]
    python3 tools/model_servers.py stop PID
    python3 tools/model_servers.py check [llama|litellm]

`start` picks a free port on 127.0.0.1 (never 8080), starts the server detached (its own session, its log in a
temporary file), waits until it answers, prints ONE JSON line and exits, leaving the server running:

    {"kind": "llama", "pid": 1234, "port": 40123, "base_url": "http://127.0.0.1:40123/v1", "log": "/tmp/...",
     "model": "SmolLM2-135M-Instruct", "models": [...], "api_key": null}

`prove` starts a llama-server binary (the installed one, or `--binary`) with the model, asks it for one short
completion and stops it: exit 0 when it answered, 1 (with the reason on stderr) when it did not. A binary that
prints its version can still die when it loads a model's weights (an instruction this CPU lacks), so a binary is
trusted only once it has served the model the tests use; tools/setup.sh proves every llama-server it installs.

`stop PID` ends the server and its process group and waits until it is gone. `check` says whether the servers are
installed. Exit codes: 0 done, 1 the server did not start or did not answer (why on stderr: an exit status or a
signal and the log's last lines, or a time-out), 2 usage, 3 not installed (run tools/setup.sh). The servers are
installed by tools/setup.sh in ${ACR_CACHE:-~/.cache/acr-wasm}.

Used by cli/tests/real_servers.rs, tests/bench/small_model.py and the Node e2e tests.
"""

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

CACHE = os.environ.get("ACR_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "acr-wasm")
LLAMA = os.path.join(CACHE, "llama", "llama-server")  # a wrapper that runs the proven binary
LITELLM = os.path.join(CACHE, "litellm", "bin", "litellm")
# The models a llama-server can be started with: the tests' (the default) and the bench's coder model. Each is a
# GGUF file in the cache, installed by tools/setup.sh (SmolLM2) or the bench's set-up (Qwen), and the name the
# server gives it (`-a`).
MODELS = {
    "smollm2": (os.path.join(CACHE, "models", "SmolLM2-135M-Instruct.Q4_1.gguf"), "SmolLM2-135M-Instruct"),
    "qwen2.5-coder-1.5b": (os.path.join(CACHE, "models", "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"),
                           "Qwen2.5-Coder-1.5B-Instruct"),
}
DEFAULT_MODEL = "smollm2"
MODEL, MODEL_NAME = MODELS[DEFAULT_MODEL]
# What LiteLLM's `mock-model` answers, every time and at every stage.
MOCK_TEXT = "I could not find anything to change for this issue."
DEFAULT_MASTER_KEY = "sk-acr-test-master-key"
NOT_INSTALLED = 3


class NotReady(Exception):
    """A server that did not come up: why, in words a person can act on."""


def missing(kind, model=DEFAULT_MODEL):
    """The files `kind` needs that are not there."""
    need = {"llama": [LLAMA, MODELS[model][0]], "litellm": [LITELLM]}[kind]
    return [p for p in need if not os.path.exists(p)]


def free_port():
    while True:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if port != 8080:
            return port


def get(url, key=None, timeout=2.0):
    """(status, body) of a GET, or (None, error) when nothing answers."""
    return request(urllib.request.Request(url), key, timeout)


def post_json(url, payload, key=None, timeout=60.0):
    """(status, body) of a JSON POST, or (None, error) when nothing answers."""
    req = urllib.request.Request(url, data=json.dumps(payload).encode(), method="POST",
                                 headers={"Content-Type": "application/json"})
    return request(req, key, timeout)


def request(req, key, timeout):
    if key:
        req.add_header("Authorization", f"Bearer {key}")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as response:
            return response.status, response.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode("utf-8", "replace")
    except (OSError, urllib.error.URLError) as e:
        return None, str(e)


def alive(pid):
    """Whether `pid` runs (a zombie counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def stop(pid, grace=10.0):
    """Ends `pid` and its process group: SIGTERM, then SIGKILL after `grace` seconds."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(pid, sig)
        except ProcessLookupError:
            pass
        except PermissionError:
            os.kill(pid, sig)
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline:
            try:  # reaps it when it is our child
                os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                pass
            if not alive(pid):
                return True
            time.sleep(0.05)
    return not alive(pid)


def tail(path, lines=30):
    try:
        with open(path, errors="replace") as f:
            return "".join(f.readlines()[-lines:])
    except OSError:
        return ""


# What a signal that ends a server at start usually means.
SIGNAL_MEANS = {
    signal.SIGILL: "illegal instruction: the binary uses CPU instructions this machine does not have",
    signal.SIGSEGV: "segmentation fault",
    signal.SIGBUS: "bus error",
    signal.SIGABRT: "aborted",
    signal.SIGKILL: "killed, perhaps for want of memory",
}


def how_it_ended(returncode):
    """An exit status in words: `exited with status 1`, or `killed by SIGILL (illegal instruction: ...)`.
    A shell wrapper that `exec`s the binary passes the signal on as it is; one that does not reports 128 + N."""
    signum = -returncode if returncode < 0 else returncode - 128 if 128 < returncode < 160 else None
    if signum is None:
        return f"exited with status {returncode}"
    try:
        name = signal.Signals(signum).name
    except ValueError:
        name = f"signal {signum}"
    means = SIGNAL_MEANS.get(signum)
    return f"was killed by {name}" + (f" ({means})" if means else "")


def launch(kind, argv, env, ready, timeout):
    """Starts `argv` detached with its log in a temporary file and waits until `ready(port)` holds.
    `argv` is a function of the port. Returns (process, port, log); raises NotReady, telling a process that ended
    (how, and its log's end) from one still starting when `timeout` seconds ran out."""
    for _attempt in range(3):
        port = free_port()
        fd, log = tempfile.mkstemp(prefix=f"acr-{kind}-", suffix=".log")
        started = time.monotonic()
        with os.fdopen(fd, "w") as out:
            process = subprocess.Popen(
                argv(port), stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, env=env,
                start_new_session=True, close_fds=True,
            )
        deadline = started + timeout
        while time.monotonic() < deadline:
            if process.poll() is not None:
                break
            if ready(port):
                return process, port, log
            time.sleep(0.2)
        returncode = process.poll()
        stop(process.pid)
        text = tail(log)
        if returncode is not None and ("bind" in text.lower() or "address already in use" in text.lower()):
            continue  # another process took the port between the choice and the bind: try another
        if returncode is not None:
            raise NotReady(f"{kind} {how_it_ended(returncode)} {time.monotonic() - started:.1f} s after it started; "
                           f"its log ({log}) ends:\n{text}")
        raise NotReady(f"{kind} was still starting after {timeout:.0f} s (it did not answer); its log ({log}) "
                       f"ends:\n{text}")
    raise NotReady(f"{kind} could not bind a port")


def llama_argv(binary, model, args):
    path, name = MODELS[model]

    def argv(port):
        command = [binary, "-m", path, "-a", name, "--host", "127.0.0.1", "--port", str(port),
                   "-c", str(args.ctx), "-np", "1", "-t", str(args.threads), "--no-webui"]
        if args.no_jinja:
            command.append("--no-jinja")
        if args.api_key:
            command += ["--api-key", args.api_key]
        if args.ignore_eos:
            command.append("--ignore-eos")
        return command
    return argv


def start_llama(args, binary=LLAMA):
    # /health answers 503 while the model loads, 200 once it can answer (it needs no key).
    process, port, log = launch("llama-server", llama_argv(binary, args.model, args), dict(os.environ),
                                lambda port: get(f"http://127.0.0.1:{port}/health")[0] == 200, args.wait)
    name = MODELS[args.model][1]
    return {"kind": "llama", "pid": process.pid, "port": port, "base_url": f"http://127.0.0.1:{port}/v1",
            "log": log, "model": name, "models": [name], "api_key": args.api_key}


def prove_llama(args):
    """Starts `args.binary` with the model, asks for a short completion, stops it. Raises NotReady with the reason
    when the binary does not serve the model (it dies, hangs or answers with an error)."""
    info = start_llama(args, args.binary)
    try:
        status, body = post_json(f"{info['base_url']}/chat/completions", {
            "model": info["model"], "max_tokens": 8, "temperature": 0,
            "messages": [{"role": "user", "content": "Say OK."}],
        }, key=args.api_key, timeout=args.wait)
        # A connection closed without an answer is most often a server that died: give it a moment to be gone.
        deadline = time.monotonic() + (3.0 if status is None else 0.0)
        while alive(info["pid"]) and time.monotonic() < deadline:
            time.sleep(0.05)
        if not alive(info["pid"]):
            returncode = None
            try:
                returncode = os.waitpid(info["pid"], 0)[1]
                returncode = -os.WTERMSIG(returncode) if os.WIFSIGNALED(returncode) else os.WEXITSTATUS(returncode)
            except ChildProcessError:
                pass
            ended = how_it_ended(returncode) if returncode is not None else "ended"
            raise NotReady(f"llama-server {ended} while answering its first request; its log ({info['log']}) "
                           f"ends:\n{tail(info['log'])}")
        if status is None:
            raise NotReady(f"llama-server did not answer its first request ({body}); its log ({info['log']}) "
                           f"ends:\n{tail(info['log'])}")
        if status != 200:
            raise NotReady(f"llama-server answered its first request with {status}: {body[:500]}")
        try:
            choice = json.loads(body)["choices"][0]["message"]
        except (ValueError, KeyError, IndexError, TypeError):
            raise NotReady(f"llama-server's first answer is not a chat completion: {body[:500]}")
        return {"binary": args.binary, "model": info["model"], "answer": choice.get("content")}
    finally:
        stop(info["pid"])


def litellm_config(args):
    """LiteLLM's config (YAML is a superset of JSON, so it is written as JSON)."""
    models = [{
        "model_name": "mock-model",
        "litellm_params": {"model": "openai/mock-model", "api_key": "unused", "mock_response": MOCK_TEXT},
    }]
    if args.llama_url:
        base = args.llama_url.rstrip("/")
        base = base if base.endswith("/v1") else base + "/v1"
        models.append({
            "model_name": "smollm2",
            "litellm_params": {"model": f"openai/{MODEL_NAME}", "api_base": base,
                               "api_key": args.llama_key or "none"},
        })
    return {
        "model_list": models,
        "general_settings": {"master_key": args.master_key},
        "litellm_settings": {"telemetry": False},
    }


def start_litellm(args):
    config = litellm_config(args)
    fd, path = tempfile.mkstemp(prefix="acr-litellm-", suffix=".yaml")
    with os.fdopen(fd, "w") as f:
        json.dump(config, f, indent=1)
    env = dict(os.environ)
    env["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"  # else it fetches prices from the internet at start
    env["LITELLM_TELEMETRY"] = "False"
    env.pop("DATABASE_URL", None)

    def argv(port):
        return [LITELLM, "--config", path, "--host", "127.0.0.1", "--port", str(port), "--num_workers", "1"]

    def ready(port):
        status, _ = get(f"http://127.0.0.1:{port}/health/readiness")
        return status == 200 and get(f"http://127.0.0.1:{port}/v1/models", key=args.master_key)[0] == 200

    process, port, log = launch("litellm", argv, env, ready, args.wait)
    names = [m["model_name"] for m in config["model_list"]]
    return {"kind": "litellm", "pid": process.pid, "port": port, "base_url": f"http://127.0.0.1:{port}/v1",
            "log": log, "model": names[-1], "models": names, "api_key": args.master_key, "config": path}


def llama_options(parser, wait):
    parser.add_argument("--model", choices=sorted(MODELS), default=DEFAULT_MODEL,
                        help=f"the model to serve (default {DEFAULT_MODEL}, the tests' model)")
    parser.add_argument("--ctx", type=int, default=8192, help="context size in tokens (-c)")
    parser.add_argument("--no-jinja", action="store_true", help="no chat templates: the server refuses tools")
    parser.add_argument("--api-key", help="the key the server asks for")
    parser.add_argument("--ignore-eos", action="store_true",
                        help="every answer runs to its cap (for a test that stops an answer while it streams)")
    parser.add_argument("--threads", type=int, default=1, help="threads (-t); 1 stays fast on a busy machine")
    parser.add_argument("--wait", type=float, default=wait, help="seconds to wait for /health")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    start = sub.add_parser("start", help="start a server, print one JSON line")
    kinds = start.add_subparsers(dest="kind", required=True)
    llama = kinds.add_parser("llama", help="llama.cpp's llama-server with a model (SmolLM2-135M by default)")
    llama_options(llama, 60.0)
    lite = kinds.add_parser("litellm", help="a LiteLLM proxy: mock-model, and smollm2 routed to a llama-server")
    lite.add_argument("--llama-url", help="a llama-server's URL: adds the model `smollm2` routed to it")
    lite.add_argument("--llama-key", help="the llama-server's key, if it asks for one")
    lite.add_argument("--master-key", default=DEFAULT_MASTER_KEY, help="the proxy's key")
    lite.add_argument("--wait", type=float, default=120.0, help="seconds to wait for readiness")
    prove = sub.add_parser("prove", help="exit 0 when a llama-server binary serves the model, 1 (and why) when not")
    prove_kinds = prove.add_subparsers(dest="kind", required=True)
    prove_llama_parser = prove_kinds.add_parser("llama", help="start the binary with the model, ask, stop")
    prove_llama_parser.add_argument("--binary", default=LLAMA, help="the llama-server to prove (default: the installed one)")
    llama_options(prove_llama_parser, 120.0)
    halt = sub.add_parser("stop", help="stop a server started here, by its pid")
    halt.add_argument("pid", type=int)
    check = sub.add_parser("check", help="exit 0 when the servers are installed, 3 otherwise")
    check.add_argument("kind", nargs="?", choices=["llama", "litellm"])
    check.add_argument("--model", choices=sorted(MODELS), default=DEFAULT_MODEL)
    args = parser.parse_args()

    if args.command == "stop":
        sys.exit(0 if stop(args.pid) else 1)
    model = getattr(args, "model", DEFAULT_MODEL)
    if args.command == "prove":
        absent = [p for p in [args.binary, MODELS[model][0]] if not os.path.exists(p)]
    else:
        kinds_needed = [args.kind] if args.kind else ["llama", "litellm"]
        absent = [p for k in kinds_needed for p in missing(k, model)]
    if absent:
        sys.stderr.write(f"model_servers: not installed: {', '.join(absent)}; run tools/setup.sh\n")
        sys.exit(NOT_INSTALLED)
    if args.command == "check":
        return
    try:
        if args.command == "prove":
            info = prove_llama(args)
        else:
            info = start_llama(args) if args.kind == "llama" else start_litellm(args)
    except NotReady as e:
        sys.stderr.write(f"model_servers: {e}\n")
        sys.exit(1)
    print(json.dumps(info), flush=True)


if __name__ == "__main__":
    main()
