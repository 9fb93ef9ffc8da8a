#!/usr/bin/python3
# hookrecv.py PORTFILE LOG SECRET FAILS: a local HTTP receiver of robotd's
# webhooks.  POST /hook: the body is JSON and X-Robot-Signature is
# "sha256=" HMAC-SHA256(SECRET, X-Robot-Timestamp "." body); the first
# FAILS posts (with a good signature) are answered 500, later ones 200.
# POST /chat: the body must be {"text": a string} and nothing else (the
# shape of Slack's and Mattermost's incoming webhooks), else 400.  Every
# post is a line of LOG: {"path", "status", "valid", "doc"}.  The port
# goes to PORTFILE once it listens.
import hashlib
import hmac
import http.server
import json
import os
import sys

portfile, log, secret, fails = sys.argv[1], sys.argv[2], sys.argv[3].encode(), int(sys.argv[4])
seen = {"hook": 0}


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        status, valid, doc = 400, False, None
        try:
            doc = json.loads(body)
        except ValueError:
            doc = None
        if self.path.split("?")[0] == "/hook":
            ts = self.headers.get("X-Robot-Timestamp", "")
            want = "sha256=" + hmac.new(secret, ts.encode() + b"." + body,
                                        hashlib.sha256).hexdigest()
            valid = doc is not None and hmac.compare_digest(
                want, self.headers.get("X-Robot-Signature", ""))
            if valid:
                seen["hook"] += 1
                status = 500 if seen["hook"] <= fails else 200
        elif self.path == "/chat":
            valid = isinstance(doc, dict) and list(doc) == ["text"] and \
                isinstance(doc["text"], str) and doc["text"] != ""
            status = 200 if valid else 400
        self.send_response(status)
        self.send_header("Content-Length", "0")
        self.end_headers()
        with open(log, "a") as f:
            f.write(json.dumps({"path": self.path, "status": status,
                                "valid": valid, "doc": doc}) + "\n")


srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
with open(portfile + ".tmp", "w") as f:
    f.write("%d\n" % srv.server_address[1])
os.rename(portfile + ".tmp", portfile)
srv.serve_forever()
