#!/usr/bin/env python3
"""Serves a folder over HTTP with the right type for .wasm. Usage: serve.py DIR [PORT] [--host HOST] (PORT 8765 by default).

Everything is served uncached except `pyodide/`, whose files are versioned by their folder or file name and are
cached by the browser for good: a second visit does not download Python again. The worker that runs JavaScript in
the tab (`script-worker.mjs`) is sent with a Content-Security-Policy that keeps the code it runs to this origin's
scripts and its own blob URLs and lets it connect nowhere; it refuses to run code without one."""
import argparse
import functools
import http.server
import sys


# What the JavaScript worker may load: its own modules, the blob URLs it makes for the repository's modules, and
# functions built from CommonJS sources; nothing else, and no connection anywhere.
SCRIPT_WORKER_POLICY = "default-src 'none'; script-src 'self' blob: 'unsafe-eval'"

# The playground's port: `make play`'s, and the origin the runner server allows by default (acr-runner --origin).
PLAYGROUND_PORT = 8765


class Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                      ".wasm": "application/wasm", ".js": "text/javascript", ".mjs": "text/javascript"}

    def end_headers(self):
        immutable = self.path.startswith("/pyodide/")
        self.send_header("Cache-Control", "public, max-age=31536000, immutable" if immutable else "no-store")
        if self.path.split("?")[0] == "/script-worker.mjs":
            self.send_header("Content-Security-Policy", SCRIPT_WORKER_POLICY)
        super().end_headers()

    def log_message(self, fmt, *args):  # keep test output quiet
        pass


class Server(http.server.ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        # A browser that goes away mid-download (a page closed, a worker terminated while loading Python) is normal.
        if isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError)):
            return
        super().handle_error(request, client_address)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("dir")
    parser.add_argument("port", nargs="?", type=int, default=PLAYGROUND_PORT)
    parser.add_argument("--host", default="127.0.0.1")
    args = parser.parse_args()
    handler = functools.partial(Handler, directory=args.dir)
    with Server((args.host, args.port), handler) as server:
        port = server.server_address[1]
        print(f"acr-wasm playground: http://{args.host}:{port}/", flush=True)
        if port != PLAYGROUND_PORT:
            print(f"note: a runner server allows http://127.0.0.1:{PLAYGROUND_PORT} by default; for this page start it "
                  f"with `acr-runner --origin http://{args.host}:{port}`", flush=True)
        server.serve_forever()


if __name__ == "__main__":
    main()
