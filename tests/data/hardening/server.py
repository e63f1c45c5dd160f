#!/usr/bin/env python3
"""server.py PORT_FILE LOG_FILE — a local server for test_hardening.sh.

/v8/aws/vms.csv  the AWS sample catalog with an ETag holding a bare CR
/v8/gcp/vms.csv  429 with Retry-After: 99999999999999999999 (20 digits)
Every request's If-None-Match is logged with repr(), so a CR shows as \\r.
Listens on 127.0.0.1 only. Copyright (C) 2026 the hetplan authors.
GPL-3.0-or-later."""
import os
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ROOT = os.path.dirname(os.path.abspath(__file__))
PORT_FILE, LOG_FILE = sys.argv[1:3]


class H(BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def do_GET(self):
        with open(LOG_FILE, "a") as f:
            f.write("%s inm=%r\n" % (self.path, self.headers.get("If-None-Match")))
        if self.path == "/v8/aws/vms.csv":
            with open(os.path.join(ROOT, "..", "fixtures",
                                   "skypilot-v8-aws-vms.sample.csv"), "rb") as f:
                body = f.read()
            self.send_response(200)
            # send_header writes the value as given: a CR inside it.
            self.send_header("ETag", '"ab\rcd"')
        elif self.path == "/v8/gcp/vms.csv":
            body = b"slow down\n"
            self.send_response(429)
            self.send_header("Retry-After", "99999999999999999999")
        else:
            body = b"no\n"
            self.send_response(404)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


srv = ThreadingHTTPServer(("127.0.0.1", 0), H)
with open(PORT_FILE + ".tmp", "w") as f:
    f.write(str(srv.server_address[1]))
os.rename(PORT_FILE + ".tmp", PORT_FILE)
srv.serve_forever()
