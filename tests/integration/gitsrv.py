#!/usr/bin/env python3
# gitsrv.py PORT_FILE LOG ROOT: git's smart HTTP (git http-backend as a
# CGI) for the bare repositories under ROOT, on 127.0.0.1, behind HTTP
# basic authentication as $GITSRV_CREDENTIAL (USER:PASSWORD; not an
# argument, which would show it on this command line).  Each request is a line
# of LOG: "auth" or "noauth" and its path; and, while it is served,
# every process whose command line holds the password is a line "leak
# PID ARGS" (a fetch's git is running then).
import base64
import os
import subprocess
import sys
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

port_file, log, root = sys.argv[1:4]
cred = os.environ["GITSRV_CREDENTIAL"]
secret = cred.split(":", 1)[1]
# (as it is, and as a URL writes it)
forms = {secret.encode(), urllib.parse.quote(secret, safe="").encode()}
want = "Basic " + base64.b64encode(cred.encode()).decode()


def note(line):
    with open(log, "a") as f:
        f.write(line + "\n")


def leaks():
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            args = open("/proc/%s/cmdline" % pid, "rb").read()
        except OSError:
            continue
        if any(f in args for f in forms):
            note("leak %s %s" % (pid, args.replace(b"\0", b" ").decode(errors="replace")))


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def serve(self):
        leaks()
        if self.headers.get("Authorization") != want:
            note("noauth " + self.path)
            self.send_response(401)
            self.send_header("WWW-Authenticate", 'Basic realm="git"')
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        note("auth " + self.path)
        path, _, query = self.path.partition("?")
        body = self.rfile.read(int(self.headers.get("Content-Length", "0") or 0))
        env = dict(os.environ, GIT_PROJECT_ROOT=root, GIT_HTTP_EXPORT_ALL="1",
                   PATH_INFO=path, QUERY_STRING=query, REQUEST_METHOD=self.command,
                   CONTENT_TYPE=self.headers.get("Content-Type", ""),
                   CONTENT_LENGTH=str(len(body)), REMOTE_ADDR="127.0.0.1")
        out = subprocess.run(["git", "http-backend"], input=body, env=env,
                             stdout=subprocess.PIPE).stdout
        head, _, rest = out.partition(b"\r\n\r\n")
        status, headers = 200, []
        for line in head.decode().split("\r\n"):
            k, _, v = line.partition(": ")
            if k.lower() == "status":
                status = int(v.split()[0])
            elif k:
                headers.append((k, v))
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(rest)))
        self.end_headers()
        self.wfile.write(rest)

    do_GET = serve
    do_POST = serve


s = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
with open(port_file, "w") as f:
    f.write("%d\n" % s.server_address[1])
s.serve_forever()
