#!/usr/bin/env python3
"""fixture_http.py DIR PORTFILE — a loopback HTTP server for the TUI tests.

Binds 127.0.0.1 on a free port and writes the port to PORTFILE.
  GET /slow/...   sends headers promising 100000 bytes, then one byte every
                  0.5 s (a server that trickles), until the client goes away
  GET /.../CLOUD/vms.csv  serves DIR/CLOUD/vms.csv whole (404 if absent)
Runs until killed."""
import http.server, os, socketserver, sys, time

root, portfile = sys.argv[1], sys.argv[2]

class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def do_GET(self):
        if self.path.startswith("/slow/"):
            self.send_response(200)
            self.send_header("Content-Type", "text/csv")
            self.send_header("Content-Length", "100000")
            self.end_headers()
            try:
                for _ in range(100000):
                    self.wfile.write(b"I")
                    self.wfile.flush()
                    time.sleep(0.5)
            except OSError:
                pass
            return
        parts = self.path.strip("/").split("/")
        path = os.path.join(root, *parts[-2:])
        if not os.path.isfile(path):
            self.send_error(404)
            return
        body = open(path, "rb").read()
        self.send_response(200)
        self.send_header("Content-Type", "text/csv")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True

srv = Server(("127.0.0.1", 0), Handler)
with open(portfile + ".tmp", "w") as f:
    f.write(str(srv.server_address[1]))
os.rename(portfile + ".tmp", portfile)
srv.serve_forever()
