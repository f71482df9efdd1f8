#!/usr/bin/env python3
"""Starts and stops real OpenAI-compatible servers for tests and benches: llama.cpp's llama-server with the
SmolLM2-135M model, and a LiteLLM proxy (a fixed-answer model and a route to a llama-server).

    python3 tools/model_servers.py start llama [--ctx N] [--no-jinja] [--api-key K] [--threads N]
    python3 tools/model_servers.py start litellm [--llama-url URL] [--llama-key K] [--master-key K]
    python3 tools/model_servers.py stop PID
    python3 tools/model_servers.py check [llama|litellm]

`start` picks a free port on 127.0.0.1 (never 8080), starts the server detached (its own session, its log in a
temporary file), waits until it answers, prints ONE JSON line and exits, leaving the server running:

    {"kind": "llama", "pid": 1234, "port": 40123, "base_url": "http://127.0.0.1:40123/v1", "log": "/tmp/...",
     "model": "SmolLM2-135M-Instruct", "models": [...], "api_key": null}

`stop PID` ends the server and its process group and waits until it is gone. `check` says whether the servers are
installed. Exit codes: 0 done, 1 the server did not start (its log's end on stderr), 2 usage, 3 not installed
(run tools/setup.sh). The servers are installed by tools/setup.sh in ${ACR_CACHE:-~/.cache/acr-wasm}.

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
LLAMA = os.path.join(CACHE, "llama", "llama-server")  # a wrapper that sets LD_LIBRARY_PATH
MODEL = os.path.join(CACHE, "models", "SmolLM2-135M-Instruct.Q4_1.gguf")
LITELLM = os.path.join(CACHE, "litellm", "bin", "litellm")
MODEL_NAME = "SmolLM2-135M-Instruct"
# What LiteLLM's `mock-model` answers, every time and at every stage.
MOCK_TEXT = "I could not find anything to change for this issue."
DEFAULT_MASTER_KEY = "sk-acr-test-master-key"
NOT_INSTALLED = 3


def missing(kind):
    """The files `kind` needs that are not there."""
    need = {"llama": [LLAMA, MODEL], "litellm": [LITELLM]}[kind]
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
    request = urllib.request.Request(url)
    if key:
        request.add_header("Authorization", f"Bearer {key}")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
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


def launch(kind, argv, env, ready, timeout):
    """Starts `argv` detached with its log in a temporary file and waits until `ready(port)` holds.
    `argv` is a function of the port. Returns (process, port, log)."""
    for _attempt in range(3):
        port = free_port()
        fd, log = tempfile.mkstemp(prefix=f"acr-{kind}-", suffix=".log")
        with os.fdopen(fd, "w") as out:
            process = subprocess.Popen(
                argv(port), stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, env=env,
                start_new_session=True, close_fds=True,
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if process.poll() is not None:
                break
            if ready(port):
                return process, port, log
            time.sleep(0.2)
        exited = process.poll() is not None
        stop(process.pid)
        text = tail(log)
        if exited and ("bind" in text.lower() or "address already in use" in text.lower()):
            continue  # another process took the port between the choice and the bind: try another
        sys.stderr.write(f"model_servers: {kind} did not become ready in {timeout:.0f} s; its log ({log}) ends:\n{text}")
        sys.exit(1)
    sys.stderr.write(f"model_servers: {kind} could not bind a port\n")
    sys.exit(1)


def start_llama(args):
    def argv(port):
        command = [LLAMA, "-m", MODEL, "-a", MODEL_NAME, "--host", "127.0.0.1", "--port", str(port),
                   "-c", str(args.ctx), "-np", "1", "-t", str(args.threads), "--no-webui"]
        if args.no_jinja:
            command.append("--no-jinja")
        if args.api_key:
            command += ["--api-key", args.api_key]
        return command

    # /health answers 503 while the model loads, 200 once it can answer (it needs no key).
    process, port, log = launch("llama", argv, dict(os.environ),
                                lambda port: get(f"http://127.0.0.1:{port}/health")[0] == 200, args.wait)
    return {"kind": "llama", "pid": process.pid, "port": port, "base_url": f"http://127.0.0.1:{port}/v1",
            "log": log, "model": MODEL_NAME, "models": [MODEL_NAME], "api_key": args.api_key}


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


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    start = sub.add_parser("start", help="start a server, print one JSON line")
    kinds = start.add_subparsers(dest="kind", required=True)
    llama = kinds.add_parser("llama", help="llama.cpp's llama-server with SmolLM2-135M")
    llama.add_argument("--ctx", type=int, default=8192, help="context size in tokens (-c)")
    llama.add_argument("--no-jinja", action="store_true", help="no chat templates: the server refuses tools")
    llama.add_argument("--api-key", help="the key the server asks for")
    llama.add_argument("--threads", type=int, default=1, help="threads (-t); 1 stays fast on a busy machine")
    llama.add_argument("--wait", type=float, default=60.0, help="seconds to wait for /health")
    lite = kinds.add_parser("litellm", help="a LiteLLM proxy: mock-model, and smollm2 routed to a llama-server")
    lite.add_argument("--llama-url", help="a llama-server's URL: adds the model `smollm2` routed to it")
    lite.add_argument("--llama-key", help="the llama-server's key, if it asks for one")
    lite.add_argument("--master-key", default=DEFAULT_MASTER_KEY, help="the proxy's key")
    lite.add_argument("--wait", type=float, default=120.0, help="seconds to wait for readiness")
    halt = sub.add_parser("stop", help="stop a server started here, by its pid")
    halt.add_argument("pid", type=int)
    check = sub.add_parser("check", help="exit 0 when the servers are installed, 3 otherwise")
    check.add_argument("kind", nargs="?", choices=["llama", "litellm"])
    args = parser.parse_args()

    if args.command == "stop":
        sys.exit(0 if stop(args.pid) else 1)
    kinds_needed = [args.kind] if args.kind else ["llama", "litellm"]
    absent = [p for k in kinds_needed for p in missing(k)]
    if absent:
        sys.stderr.write(f"model_servers: not installed: {', '.join(absent)}; run tools/setup.sh\n")
        sys.exit(NOT_INSTALLED)
    if args.command == "check":
        return
    info = start_llama(args) if args.kind == "llama" else start_litellm(args)
    print(json.dumps(info), flush=True)


if __name__ == "__main__":
    main()
