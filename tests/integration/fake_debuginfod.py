#!/usr/bin/env python3
"""A misbehaving debuginfod server for the client's bad-input tests.
Usage: fake_debuginfod.py PORT MODE [FILE [CERT KEY]]; binds 127.0.0.1 only,
with TLS when CERT and KEY are given.
  hang      accepts, reads the request, never answers
  garbage   200 with a few bytes that are not ELF
  huge      200 with 64 MiB of zeros, no Content-Length (cut by the size cap)
  announced 200 with Content-Length: 64 MiB, then zeros (refused up front)
  file      200 with FILE (e.g. an ELF file with another build ID)
Prints "ready" once it listens."""
import http.server
import socketserver
import ssl
import sys
import time

port, mode = int(sys.argv[1]), sys.argv[2]
path = sys.argv[3] if len(sys.argv) > 3 else None
SIZE = 64 << 20


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        try:
            if mode == "hang":
                time.sleep(3600)
                return
            if mode == "garbage":
                body = b"this is not an ELF file\n"
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                return
            if mode in ("huge", "announced"):
                self.send_response(200)
                if mode == "announced":
                    self.send_header("Content-Length", str(SIZE))
                self.end_headers()
                chunk = b"\0" * (1 << 16)
                for _ in range(SIZE // len(chunk)):
                    self.wfile.write(chunk)
                return
            with open(path, "rb") as f:
                body = f.read()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


with Server(("127.0.0.1", port), Handler) as srv:
    if len(sys.argv) > 5:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(sys.argv[4], sys.argv[5])
        srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    print("ready", flush=True)
    srv.serve_forever()
