#!/usr/bin/env python3
# hostile.py URL PSQL_HOST SUBMIT_TOKEN BOX_TOKEN(b1) BOX2_TOKEN(b2)
#            ADMIN_TOKEN COUNT_FILE: robotd's API against hostile requests.  Every
# case sends one request (raw bytes where the framing is the point) and
# checks the status, the error text, that robotd answered at once, and
# that nothing was stored by a refused request.  TAP output.
#
# Run by test_robotd_hostile.sh, which starts robotd and registers box b1
# (group "lab") with a job leased to it.
import json
import socket
import subprocess
import threading
import sys
import time
import urllib.parse

URL, PGHOST, SUB, B1, B2, ADM, COUNT_FILE = sys.argv[1:8]
HOST, PORT = urllib.parse.urlparse(URL).hostname, urllib.parse.urlparse(URL).port
n = 0
failed = 0


# One psql for the whole run: each case reads the counts twice, and a
# psql of its own each time (a process and a backend) cost about 50 ms
# of CPU, 20 s over the run.
PSQL = subprocess.Popen(["psql", "-h", PGHOST, "-U", "robot", "-d", "postgres", "-XAtq"],
                        stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                        stderr=subprocess.DEVNULL, text=True, bufsize=1)


def sql(q):
    """One query's output (empty when it failed), as psql -Atc prints it."""
    PSQL.stdin.write(q.rstrip().rstrip(";") + ";\n\\echo __hostile_end__\n")
    PSQL.stdin.flush()
    out = []
    for line in PSQL.stdout:
        if line == "__hostile_end__\n":
            break
        out.append(line)
    return "".join(out).strip()


def counts():
    return sql("SELECT (SELECT count(*) FROM jobs) || ',' || (SELECT count(*) FROM "
               "submissions) || ',' || (SELECT count(*) FROM results) || ',' || "
               "(SELECT count(*) FROM boxes) || ',' || (SELECT md5(string_agg("
               "name || tbox_group || facts::text || state || failures, ',' ORDER BY name)) "
               "FROM boxes) || ',' || (SELECT count(*) FROM leases WHERE state <> 'active') || "
               "',' || (SELECT count(*) FROM subscriptions)")


def raw(data, timeout=10, half_close=True):
    """Sends bytes; returns (status, body, seconds) or (0, why, seconds).
    Unless half_close is false, shuts down its side for writing once
    the bytes are sent (robotd takes a request with a hung-up client for
    a client gone, as it must for a box that hangs up a long poll)."""
    t0 = time.monotonic()
    s = socket.create_connection((HOST, PORT), timeout=timeout)
    buf = b""
    try:
        try:
            s.sendall(data)
            if half_close:
                s.shutdown(socket.SHUT_WR)
        except OSError:
            pass  # robotd may answer and close before it read everything
        while True:
            try:
                chunk = s.recv(65536)
            except socket.timeout:
                return 0, "timeout", time.monotonic() - t0
            except OSError:
                break
            if not chunk:
                break
            buf += chunk
    finally:
        s.close()
    dt = time.monotonic() - t0
    if not buf.startswith(b"HTTP/1."):
        return 0, "no answer: %r" % buf[:80], dt
    head, _, body = buf.partition(b"\r\n\r\n")
    status = int(head.split(b" ")[1])
    if b"transfer-encoding: chunked" in head.lower():
        out, rest = b"", body
        while rest:
            size, _, rest = rest.partition(b"\r\n")
            k = int(size, 16)
            if k == 0:
                break
            out += rest[:k]
            rest = rest[k + 2:]
        body = out
    return status, body.decode("utf-8", "replace"), dt


def req(method, path, token=None, body=None, headers=None):
    data = body if isinstance(body, bytes) else (body or "").encode()
    h = ["%s %s HTTP/1.1" % (method, path), "Host: %s:%d" % (HOST, PORT),
         "Connection: close"]
    if token is not None:
        h.append("Authorization: Bearer %s" % token)
    if body is not None:
        h.append("Content-Length: %d" % len(data))
    for k, v in (headers or {}).items():
        h.append("%s: %s" % (k, v))
    return raw(("\r\n".join(h) + "\r\n\r\n").encode("latin-1", "replace") + data,
               half_close=False)


def case(name, send, status, text=None, stored=False, quick=5.0):
    """send() makes the request; status: an int or a tuple of ints; text:
    a substring of the error; unless stored, nothing may be stored."""
    global n, failed
    n += 1
    before = counts()
    got, body, dt = send()
    want = status if isinstance(status, tuple) else (status,)
    ok = got in want
    why = ""
    if not ok:
        why = "status %s, not %s" % (got, status)
    if ok and text is not None:
        try:
            err = json.loads(body)
            msg = err["error"] + " " + " ".join(err.get("details", []))
        except (ValueError, KeyError, TypeError):
            msg = body
        if text.lower() not in msg.lower():
            ok, why = False, "error %r lacks %r" % (msg[:160], text)
    if ok and dt > quick:
        ok, why = False, "answered after %.1f s" % dt
    if ok and not stored and counts() != before:
        ok, why = False, "something was stored"
    if ok:
        print("ok %d - %s" % (n, name))
    else:
        failed += 1
        print("not ok %d - %s: %s" % (n, name, why))
        print("# body: %s" % body[:300].replace("\n", " "))


DD = "suite: dd-write\ntestcase: dd-write\ndisk: 1LOOP_64M\nfs: ext4\nnr_threads: 1dd\nruntime: 1s\ndd:\n  bs: 1M\n"
FACTS = {"tbox_group": "lab", "ram_disk_limit": 1073741824, "fs": ["ext4"], "cpus": 2,
         "memory": 1 << 30, "hdd": 0, "ssd": 0}
lease = json.loads(sql("SELECT json_build_object('id', l.id, 'key', j.key, 'commit', j.commit) "
                       "FROM leases l JOIN jobs j ON j.id = l.job WHERE l.state = 'active' "
                       "ORDER BY l.id DESC LIMIT 1") or "{}")
LEASE = lease.get("id", 0)
KEY = lease.get("key", "")
COMMIT = lease.get("commit")


def doc(**kw):
    d = {"version": 1, "key": KEY, "tbox_group": "lab", "box": "b1", "commit": COMMIT,
         "status": "ok", "error": None, "stats": {"dd.write_bytes_per_sec": 1.5}}
    d.update(kw)
    return json.dumps(d)


# --- Framing --------------------------------------------------------------
H = "Host: %s:%d\r\n" % (HOST, PORT)
case("HTTP/1.1 without Host", lambda: raw(b"GET /api/status HTTP/1.1\r\nConnection: close\r\n\r\n"), 400)
# libmicrohttpd 0.9.75 hands robotd a header value cut at a NUL (robotd
# refuses one it sees): what follows a NUL is never read, so a NUL cannot
# smuggle a token in.
case("a NUL in a header value", lambda: raw(("GET /api/status HTTP/1.1\r\n" + H + "X-A: a\x00b\r\nConnection: close\r\n\r\n").encode()), (200, 400))
case("a NUL before the token", lambda: raw(("POST /api/jobs?tbox_group=lab HTTP/1.1\r\n" + H + "Authorization: Bearer \x00" + SUB + "\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s" % (len(DD), DD)).encode()), (400, 401))
case("a control character in a header value", lambda: raw(("GET /api/status HTTP/1.1\r\n" + H + "X-A: a\x1bb\r\nConnection: close\r\n\r\n").encode()), 400)
case("%00 in the path", lambda: req("GET", "/api/status%00/x"), (400, 404))
case("%00 at the end of the path", lambda: req("GET", "/api/status%00"), (400, 404))
case("a control character in the path", lambda: req("GET", "/api/status%0a"), (400, 404))
case("a path of 10,000 bytes", lambda: req("GET", "/api/" + "a" * 10000), (400, 404, 414, 431))
case("150 query arguments", lambda: req("GET", "/api/jobs?" + "&".join("a%d=1" % i for i in range(150))), (400, 414, 431), quick=3)
case("400 query arguments", lambda: req("GET", "/api/jobs?" + "&".join("a%d=1" % i for i in range(400))), (400, 414, 431), quick=3)
case("a header of 20,000 bytes", lambda: req("GET", "/api/status", headers={"X-Big": "a" * 20000}), (400, 413, 431), quick=3)
case("a malformed request line", lambda: raw(b"GARBAGE\r\n\r\n"), (0, 400))
case("HTTP/2's preface", lambda: raw(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"), (0, 400, 404, 405, 505))
case("an unknown method", lambda: req("BREW", "/api/status"), (400, 405, 501))
case("Content-Length not a number", lambda: raw(("POST /api/jobs HTTP/1.1\r\n" + H + "Content-Length: abc\r\nConnection: close\r\n\r\n").encode()), (0, 400, 413))
case("Content-Length negative", lambda: raw(("POST /api/jobs HTTP/1.1\r\n" + H + "Content-Length: -5\r\nConnection: close\r\n\r\n").encode()), (0, 400, 413))
big = b"x" * (1024 * 1024 + 10)
chunked = b"".join(b"%x\r\n%s\r\n" % (len(big[i:i + 65536]), big[i:i + 65536]) for i in range(0, len(big), 65536)) + b"0\r\n\r\n"
case("a chunked job file over 1 MiB", lambda: raw(("POST /api/jobs?tbox_group=lab HTTP/1.1\r\n" + H + "Authorization: Bearer " + SUB + "\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n").encode() + chunked), 413, "larger than")
case("Content-Length over 1 MiB", lambda: raw(("POST /api/jobs HTTP/1.1\r\n" + H + "Authorization: Bearer " + SUB + "\r\nContent-Length: 2000000\r\nConnection: close\r\n\r\n").encode() + b"#" * 2000000), 413, "larger than")
case("Content-Length of 1 GB, no body", lambda: raw(("POST /api/jobs HTTP/1.1\r\n" + H + "Authorization: Bearer " + SUB + "\r\nContent-Length: 1000000000\r\nConnection: close\r\n\r\n").encode()), 413, "larger than")
case("a GET with a body", lambda: req("GET", "/api/status", body="x" * 100), (200, 400, 413))
case("HEAD of the status", lambda: req("HEAD", "/api/status"), 200)
case("a path with ..", lambda: req("GET", "/api/jobs/../status"), (400, 404))
case("an unknown route", lambda: req("GET", "/api/nothing"), 404, "no such resource")
case("a wrong method", lambda: req("DELETE", "/api/jobs"), 405, "use GET or POST")

# --- Tokens ---------------------------------------------------------------
case("submit without a token", lambda: req("POST", "/api/jobs?tbox_group=lab", None, DD), 401, "needs a token")
case("an empty Bearer", lambda: req("POST", "/api/jobs?tbox_group=lab", "", DD), 401)
case("Basic instead of Bearer", lambda: req("POST", "/api/jobs", None, DD, {"Authorization": "Basic eDp5"}), 401)
case("an unknown token", lambda: req("POST", "/api/jobs?tbox_group=lab", "rbt_" + "0" * 48, DD), 401, "unknown token")
case("a token of invalid UTF-8", lambda: raw(("POST /api/jobs HTTP/1.1\r\n" + H).encode() + b"Authorization: Bearer \xff\xfe\xc0\x80\r\nContent-Length: 4\r\nConnection: close\r\n\r\nabcd"), 401)
case("a token of 5,000 bytes", lambda: req("POST", "/api/jobs", "rbt_" + "a" * 5000, DD), (401, 431))
case("a token with spaces", lambda: req("POST", "/api/jobs", "rbt_ a b", DD), 401)
case("a box token submits", lambda: req("POST", "/api/jobs?tbox_group=lab", B1, DD), 403, "submit token")
case("a submit token registers a box", lambda: req("POST", "/api/boxes/b1/register", SUB, json.dumps(FACTS)), 403, "box token")
case("b2's token registers b1", lambda: req("POST", "/api/boxes/b1/register", B2, json.dumps(FACTS)), 403, "not b1's")
case("b2's token leases for b1", lambda: req("POST", "/api/boxes/b1/lease?wait=0", B2), 403)
case("b2's token heartbeats b1's lease", lambda: req("POST", "/api/leases/%d/heartbeat" % LEASE, B2), 403, "not yours")
case("b2's token uploads for b1's lease", lambda: req("POST", "/api/leases/%d/result" % LEASE, B2, doc(box="b2")), 403)
case("a submit token resets a box", lambda: req("POST", "/api/boxes/b1/reset", SUB), 403, "admin token")
case("a box token resets a box", lambda: req("POST", "/api/boxes/b1/reset", B1), 403, "admin token")
case("lower-case bearer works", lambda: req("GET", "/api/status", None, None, {"Authorization": "bearer x"}), 200)

# --- Submit bodies --------------------------------------------------------
def submit(body, q="tbox_group=lab"):
    return req("POST", "/api/jobs?" + q, SUB, body)


case("an empty job file", lambda: submit(""), 400, "empty")
case("a job file of blanks", lambda: submit("   \n\n  \n"), 400, "empty")
case("a job file of binary garbage", lambda: submit(b"\x00\x01\x02\xff\xfe" * 50), 400)
case("a job file of invalid UTF-8", lambda: submit(b"suite: \xff\xfe\n"), 400)
case("malformed YAML", lambda: submit("suite: dd\n  testcase: [unclosed\n"), 400, "malformed YAML")
case("a YAML list, not a mapping", lambda: submit("- a\n- b\n"), 400, "mapping")
case("a JSON array of numbers", lambda: submit("[1, 2, 3]", "tbox_group=lab&name=x.json"), 400)
case("a job nested 100 deep", lambda: submit("a: " + "[" * 100 + "]" * 100), 400, "deeper")
bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
    "%s: &%s [%s]\n" % (chr(98 + i), chr(98 + i), ", ".join(["*" + chr(97 + i)] * 10)) for i in range(8))
case("a YAML alias bomb", lambda: submit(DD + bomb), 400, "values")
anchor_bomb = "x: &x [" + ", ".join(["aaaaaaaaaa"] * 2000) + "]\n" + "".join("k%d: *x\n" % i for i in range(5000))
case("an anchor copied 5,000 times", lambda: submit(anchor_bomb), 400, "values", quick=3)
merge_bomb = "m: &m {" + ", ".join("k%d: v" % i for i in range(2000)) + "}\n" + "".join("n%d: {<<: *m}\n" % i for i in range(2000))
case("a merge key copied 2,000 times", lambda: submit(merge_bomb), 400, "values", quick=3)
many_keys = "".join("%05x: 1\n" % i for i in range(100000))
# Answered in linear time: the quadratic lookup this guards against took
# 28 s plainly.  15 s leaves room for ASan beside a kernel build (3.3 s
# there; a bound of 3 failed).
case("100,000 keys in one mapping", lambda: submit(many_keys), 400, "values", quick=15)
many_anchors = "a:\n" + "".join("- &%x 1\n" % i for i in range(50000)) + "b:\n" + "".join("- *c34f\n" for i in range(50000))
case("50,000 anchors and 50,000 aliases", lambda: submit(many_anchors), 400, quick=3)
nested_anchors = "a: " + "".join("&a%d [" % i for i in range(60)) + "x, " * 4000 + "]" * 60 + "\n"
case("sixty nested anchors on 4,000 values", lambda: submit(nested_anchors), 400, "values", quick=3)
runs = "suite: dd-write\ntestcase: dd-write\ndisk: 1LOOP_64M\nfs: ext4\nruntime: 1s\ndd:\n  bs: [" + ", ".join("%dK" % (i + 1) for i in range(100)) + "]\nnr_threads: [1dd, 2dd]\n"
case("a run bomb (200 jobs x 100 repeats x 4 commits)", lambda: submit(runs, "tbox_group=lab&repeat=100&commit=" + "a1" * 20 + "&commit=" + "b2" * 20 + "&commit=" + "c3" * 20 + "&commit=" + "d4" * 20), 400, "runs in one submission", quick=3)
case("a job file over 1 MiB", lambda: submit("#" * (1024 * 1024 + 1)), 413)
case("a job file with a template of backticks", lambda: submit(DD + "  size: \"{{ `id` }}\"\n"), 400, "backticks")
case("a job file with File.read", lambda: submit(DD + "  size: \"{{ File.read('/etc/passwd') }}\"\n"), 400, "method call")
case("a job file including /etc/passwd", lambda: submit("<<: /etc/passwd\n" + DD), 400, "robotd cannot read your files")
case("a job file with ERB", lambda: submit(DD + "x: <%= `id` %>\n"), 400, "ERB")
case("priority 99999999999 in the file", lambda: submit(DD + "priority: 99999999999\n"), 400, "priority")
case("priority 5000 in the file", lambda: submit(DD + "priority: 5000\n"), 400, "priority")
case("priority -5000 in the file", lambda: submit(DD + "priority: -5000\n"), 400, "priority")
case("repeat 1000 in the file", lambda: submit(DD + "repeat: 1000\n"), 400, "repeat")
case("a tbox_group of 9,000 bytes in the file", lambda: submit(DD + "tbox_group: " + "g" * 9000 + "\n"), 400)
case("a tbox_group with ../ in the file", lambda: submit(DD + "tbox_group: ../../etc\n"), 400)
case("a tbox_group with an escape in the file", lambda: submit(DD + "tbox_group: \"a\\e[2J\"\n"), 400)
case("a commit with a newline in the file", lambda: submit(DD + "commit: \"a\\nb\"\n"), 400)
case("a commit that is not a full SHA, without a tree", lambda: submit(DD, "tbox_group=lab&commit=HEAD"), 400, "full 40-hex SHA")
case("a file's commit that is not a full SHA", lambda: submit(DD + "commit: v1.0\n"), 400, "full 40-hex SHA")
case("a tree of ../", lambda: submit(DD, "tbox_group=lab&tree=..%2fetc&commit=HEAD"), 400, "tree")
case("a file's tree that does not exist", lambda: submit(DD + "tree: ghost\ncommit: v1.0\n"), 400, "no tree named 'ghost'")
case("a file's commit of a rev-parse option", lambda: submit(DD + "tree: ghost\ncommit: --all\n"), 400)
case("65 commits at one submit", lambda: submit(DD, "tbox_group=lab&repeat=1" + "".join("&commit=%040x" % i for i in range(65))), 400, "64")
case("mkfs options with a shell", lambda: submit(DD.replace("fs: ext4", "fs: ext4\nmkfs: \"-O ^x; rm -rf /\"")), 400)
case("an unknown program", lambda: submit(DD + "rm:\n  rf: /\n"), 400)
case("no workload", lambda: submit("suite: dd\ndisk: 1LOOP_64M\nfs: ext4\n"), 400, "no workload")
case("a disk of 100 TB of RAM", lambda: submit(DD.replace("1LOOP_64M", "1LOOP_100T")), 400, "no box can run")
case("pmem disks", lambda: submit(DD.replace("1LOOP_64M", "2pmem")), 400, "pmem")
case("a sysctl robot does not restore", lambda: submit(DD + "sysctl:\n  sc_hostname: evil\n"), 400, "sc_hostname")
case("a matrix over the limit", lambda: submit(DD.replace("bs: 1M", "bs: [" + ", ".join("%dK" % (i + 1) for i in range(1001)) + "]")), 400, "over the limit")

# --- Submit query strings -------------------------------------------------
for q, text in [("repeat=0", "repeat"), ("repeat=101", "repeat"), ("repeat=-1", "repeat"),
                ("repeat=abc", "repeat"), ("repeat=1e3", "repeat"), ("repeat=99999999999999999999", "repeat"),
                ("priority=99999999999", "priority"), ("priority=1001", "priority"),
                ("priority=-1001", "priority"), ("priority=x", "priority"),
                ("commit=-rf", "commit"), ("commit=../../etc", "commit"), ("commit=a%20b", "commit"),
                ("commit=%ff", "commit"), ("commit=%c0%80", "commit"), ("commit=a%0ab", "commit"),
                ("commit=" + "a" * 300, "commit"), ("commit=", "commit"),
                ("tbox_group=" + "g" * 900, "tbox_group"), ("tbox_group=a%0ab", "tbox_group"),
                ("tbox_group=..%2f..", "tbox_group"), ("tbox_group=%1b%5b2J", "tbox_group"),
                ("tbox_group=", "tbox_group"), ("tbox_group=%ff", "tbox_group")]:
    full = q if q.startswith("tbox_group") else "tbox_group=lab&" + q
    case("submit with ?" + q[:40], lambda: req("POST", "/api/jobs?" + full, SUB, DD), 400, text)
case("submit with a 9,000-byte URI", lambda: req("POST", "/api/jobs?tbox_group=" + "g" * 9000, SUB, DD), 414, "8192 bytes")
case("submit with 150 query arguments", lambda: req("POST", "/api/jobs?tbox_group=lab" + "&commit=a1" * 150, SUB, DD), 414, "128 query arguments")

# --- Reads ----------------------------------------------------------------
for q, st in [("state=bogus", 400), ("limit=0", 400), ("limit=-1", 400), ("limit=abc", 400),
              ("limit=100000", 400), ("submission=abc", 400), ("submission=-1", 400),
              ("series=%ff", 400), ("series=%c0%80", 400), ("series=" + "s" * 1000, 400),
              ("series=a%0ab", 400), ("state=queued&limit=1", 200)]:
    case("GET /api/jobs?" + q[:40], lambda: req("GET", "/api/jobs?" + q), st)
for q, st in [("", 400), ("series=%ff&commit=x", 400), ("series=ok/ok&commit=%c0%80", 400),
              ("series=ok/ok&commit=../../etc", 400), ("series=a%0ab&commit=x", 400),
              ("series=" + "s" * 1000 + "&commit=x", 400), ("series=ok/ok&commit=abc", 200)]:
    case("GET /api/results?" + q[:40], lambda: req("GET", "/api/results?" + q), st)
for path, st in [("/api/jobs/abc", 404), ("/api/jobs/-1", 404), ("/api/jobs/99999999999999999999", 404),
                 ("/api/jobs/0", 404), ("/api/jobs/1.5", 404), ("/api/jobs/%31", (200, 404)),
                 ("/api/status/", 200), ("/metrics", 200), ("/api/status?x=%ff", 200)]:
    case("GET " + path, lambda: req("GET", path), st)

# --- Box endpoints --------------------------------------------------------
def register(facts, box="b1", token=B1):
    return req("POST", "/api/boxes/%s/register" % box, token,
               facts if isinstance(facts, (str, bytes)) else json.dumps(facts))


def with_facts(**kw):
    f = dict(FACTS)
    f.update(kw)
    return f


case("facts that are not JSON", lambda: register("{\"tbox_group\": "), 400, "not JSON")
case("facts that are an array", lambda: register("[1, 2]"), 400)
case("facts without a tbox_group", lambda: register({"cpus": 2}), 400, "tbox_group")
for k, v, text in [("ram_disk_limit", "lots", "ram_disk_limit"), ("ram_disk_limit", -1, "ram_disk_limit"),
                   ("ram_disk_limit", 1.5, "ram_disk_limit"), ("ram_disk_limit", 1e300, "ram_disk_limit"),
                   ("cpus", "two", "cpus"), ("cpus", -2, "cpus"), ("cpus", 0, "cpus"),
                   ("memory", "big", "memory"), ("hdd", "x", "hdd"), ("hdd", -1, "hdd"), ("ssd", [], "ssd"),
                   ("fs", "ext4", "fs"), ("fs", [1, 2], "fs"), ("fs", ["a\nb"], "fs"),
                   ("fs", ["x"] * 200, "fs"), ("tbox_group", "a\nb", "tbox_group"),
                   ("tbox_group", "\x1b]0;x\x07\x1b[2J", "tbox_group"), ("tbox_group", "../..", "tbox_group"),
                   ("tbox_group", "g" * 9000, "tbox_group"), ("tbox_group", "", "tbox_group"),
                   ("tbox_group", 5, "tbox_group"), ("kernel", "x" * 5000, "kernel"),
                   ("kernel", "", "kernel"), ("kernel", 6, "kernel"), ("cpu_model", "AMD\nEPYC", "cpu_model"),
                   ("cpu_model", "caf\u00e9", "cpu_model"), ("proc_version", "Linux \x1b[2J", "proc_version"),
                   ("proc_version", {"a": 1}, "proc_version"), ("disks", "vda", "disks"),
                   ("disks", ["vda: x"] * 33, "disks"), ("disks", ["vda\r\n"], "disks"), ("disks", [1], "disks")]:
    case("facts with %s = %r" % (k, v if not isinstance(v, str) else v[:20]), lambda: register(with_facts(**{k: v})), 400, text)
case("facts with a NUL in a string", lambda: register('{"tbox_group": "lab", "x": "a\\u0000b"}'), 400)
case("facts over 64 KiB", lambda: register("{" + " " * 70000 + "}"), 413)
for box, st in [("a%0ab", (400, 404)), ("..", (400, 404)), ("%2e%2e", (400, 404)), ("a%00b", (400, 404)),
                ("x" * 200, (400, 404)), ("-rf", (400, 404))]:
    case("register box %r" % box[:20], lambda: req("POST", "/api/boxes/%s/register" % box, B1, json.dumps(FACTS)), st)
for q in ["wait=-1", "wait=abc", "wait=999", "wait=1e3", "wait="]:
    case("lease ?" + q, lambda: req("POST", "/api/boxes/b1/lease?" + q, B1), 400, "wait")
case("heartbeat of no lease", lambda: req("POST", "/api/leases/999999/heartbeat", B1), 404, "no lease")
case("heartbeat of lease abc", lambda: req("POST", "/api/leases/abc/heartbeat", B1), 404)
case("heartbeat of a huge lease id", lambda: req("POST", "/api/leases/99999999999999999/heartbeat", B1), 404)
case("a result for no lease", lambda: req("POST", "/api/leases/999999/result", B1, doc()), 404, "no lease")


def new_lease():
    """A job of its own leased to b1 (the registrations above may have
    given b1's earlier lease back)."""
    global LEASE, KEY, COMMIT
    st, body, _ = req("POST", "/api/jobs?tbox_group=lab&repeat=1&commit=" + "ab" * 20, SUB, DD)
    assert st == 201, body
    st, body, _ = req("POST", "/api/boxes/b1/lease?wait=0", B1)
    assert st == 200, (st, body)
    j = json.loads(body)
    LEASE, KEY, COMMIT = j["lease"], j["key"], j["commit"]


def upload(body):
    return req("POST", "/api/leases/%d/result" % LEASE, B1, body)


new_lease()


case("a result that is not JSON", lambda: upload("{\"version\": "), 400, "not JSON")
case("a result that is empty", lambda: upload(""), 400)
case("a result that is an array", lambda: upload("[]"), 400)
case("a result with NaN", lambda: upload(doc().replace("1.5", "NaN")), 400)
case("a result with Infinity", lambda: upload(doc().replace("1.5", "Infinity")), 400)
case("a result with 1e999", lambda: upload(doc().replace("1.5", "1e999")), 400)
# Finite, but beyond what a summary can hold: stddev_pop's squares of
# 1e200 overflow, and every later upload at that commit failed (issue 61).
case("a result with 1e200", lambda: upload(doc().replace("1.5", "1e200")), 400, "1e+100")
case("a result with -1e200", lambda: upload(doc().replace("1.5", "-1e200")), 400, "1e+100")
case("a result with a series value of 1e155", lambda: upload(doc(series={"x": [1, 1e155]})), 400, "1e+100")
case("a result with a string for a number", lambda: upload(doc(stats={"dd.x": "fast"})), 400, "finite")
case("a result of version 2", lambda: upload(doc(version=2)), 400, "version")
case("a result without a key", lambda: upload(json.dumps({k: v for k, v in json.loads(doc()).items() if k != "key"})), 400, "key")
case("a result of another key", lambda: upload(doc(key="fsmark/other")), 400, "the lease of")
case("a result of another group", lambda: upload(doc(tbox_group="other")), 400, "tbox_group")
case("a result of another box", lambda: upload(doc(box="b2")), 400, "box")
case("a result of another commit", lambda: upload(doc(commit="f" * 40)), 400, "commit")
case("a result with an empty metric name", lambda: upload(doc(stats={"": 1})), 400, "metric")
case("a result with a control character in a metric", lambda: upload(doc(stats={"a\u001b[2Jb": 1})), 400, "metric")
case("a result with a newline in a metric", lambda: upload(doc(stats={"a\nb": 1})), 400, "metric")
case("a result with a metric of 1,000 bytes", lambda: upload(doc(stats={"m" * 1000: 1})), 400, "metric")
case("a result with a series name of control characters", lambda: upload(doc(series={"\u0007": [1]})), 400, "metric")
case("a result with a bad status", lambda: upload(doc(status="great")), 400, "status")
case("a failed result without an error", lambda: upload(doc(status="failed", stats=None)), 400, "error")
case("a result with stats a list", lambda: upload(doc(stats=[1, 2])), 400, "stats")
case("a result with series of strings", lambda: upload(doc(series={"x": ["a"]})), 400, "series")
case("a result with duplicate keys", lambda: upload(doc()[:-1] + ', "key": "x"}'), 400)
many = json.dumps({"version": 1, "key": KEY, "tbox_group": "lab", "box": "b1", "commit": COMMIT,
                   "status": "ok", "error": None, "stats": {"m%d" % i: i for i in range(200001)}})
case("a result with 200,001 metrics", lambda: upload(many), (400, 413), "metrics", quick=8)
case("a result over 16 MiB", lambda: upload("[" + " " * (16 * 1024 * 1024 + 10) + "]"), 413)
case("a result for a lease of lease id 0", lambda: req("POST", "/api/leases/0/result", B1, doc()), 404)

# The right document is stored once; another one for the same lease is a
# conflict, the same one again "duplicate".
case("the lease's own result is stored", lambda: upload(doc()), 200, stored=True)
case("the same document again: duplicate", lambda: upload(doc()), 200)
case("another document for a stored lease: 409", lambda: upload(doc(stats={"dd.write_bytes_per_sec": 99.0})), 409, "different")
case("a heartbeat of a finished lease: 409", lambda: req("POST", "/api/leases/%d/heartbeat" % LEASE, B1), 409)

# --- Mail on anyone's behalf, smuggling (issue 28) ----------------------
SB = '{"email": "victim@robot.test"}'
case("two different Content-Length headers", lambda: raw(("POST /api/subscriptions HTTP/1.1\r\n" + H + "Content-Type: application/json\r\nContent-Length: %d\r\nContent-Length: 5\r\nConnection: close\r\n\r\n%s" % (len(SB), SB)).encode()), 400, "Content-Length")
case("a NUL in the request line", lambda: raw(("GET /api/status\x00/x HTTP/1.1\r\n" + H + "Connection: close\r\n\r\n").encode()), 400, "NUL")
case("a NUL in the request line of a page", lambda: raw(("GET /\x00<script> HTTP/1.1\r\n" + H + "Connection: close\r\n\r\n").encode()), 400, "NUL")
case("a JSON subscription posted from another site (text/plain, Origin)", lambda: req("POST", "/api/subscriptions", None, SB, {"Content-Type": "text/plain", "Origin": "http://evil.example"}), 403)
case("a JSON subscription posted from another site (Sec-Fetch-Site)", lambda: req("POST", "/api/subscriptions", None, SB, {"Content-Type": "text/plain", "Sec-Fetch-Site": "cross-site"}), 403)
# The links of a confirmation mail come from public_url, else the
# address robotd listens on: never from the requester's Host header.
HB = '{"email": "host@robot.test"}'
case("a subscription asked with a forged Host", lambda: raw(("POST /api/subscriptions HTTP/1.1\r\nHost: evil.example\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s" % (len(HB), HB)).encode()), 202, stored=True)
n += 1
link = sql("SELECT message FROM outbox WHERE recipient = 'host@robot.test'")
if "evil.example" not in link and ("http://%s:%d/subscriptions/confirm?t=" % (HOST, PORT)) in link:
    print("ok %d - the confirmation link is robotd's own, not the Host header's" % n)
else:
    failed += 1
    print("not ok %d - the confirmation link is robotd's own, not the Host header's" % n)
    print("# %s" % link[:400].replace("\n", " "))

# A confirmation mail repeats none of the asker's text; confirmations
# are asked one at a time (30 at once for one address: 3 mails), at
# most 10 an hour from one client address and 100 in all.
TB = '{"email": "text@robot.test", "metric": "visit.evil.example.now"}'
case("a subscription whose filter is the asker's text", lambda: req("POST", "/api/subscriptions", None, TB, {"Content-Type": "application/json"}), 202, stored=True)
n += 1
msg = sql("SELECT message FROM outbox WHERE recipient = 'text@robot.test'")
if "evil" not in msg and "confirm?t=" in msg:
    print("ok %d - the confirmation mail repeats none of the asker's text" % n)
else:
    failed += 1
    print("not ok %d - the confirmation mail repeats none of the asker's text" % n)
    print("# %s" % msg[:400].replace("\n", " "))
RB = '{"email": "race@robot.test"}'
got = []
ts = [threading.Thread(target=lambda: got.append(req("POST", "/api/subscriptions", None, RB, {"Content-Type": "application/json"})[0])) for _ in range(30)]
for t in ts:
    t.start()
for t in ts:
    t.join()
n += 1
mails = sql("SELECT count(*) FROM outbox WHERE recipient = 'race@robot.test'")
if mails == "3" and got.count(202) == 3 and got.count(429) == 27:
    print("ok %d - 30 subscriptions of one address at once: 3 mails, 27 refused (429)" % n)
else:
    failed += 1
    print("not ok %d - 30 subscriptions of one address at once: 3 mails, 27 refused (429): %s mails, %s" % (n, mails, sorted(got)))
for i in range(12):
    st = req("POST", "/api/subscriptions", None, '{"email": "variant+%d@robot.test"}' % i, {"Content-Type": "application/json"})[0]
n += 1
asked = sql("SELECT count(*) FROM subscriptions WHERE client = '127.0.0.1'")
if asked == "10" and st == 429:
    print("ok %d - one client address asks for at most 10 subscriptions an hour" % n)
else:
    failed += 1
    print("not ok %d - one client address asks for at most 10 subscriptions an hour: %s asked, the last %s" % (n, asked, st))
case("past that, a submit token's subscription is not a client's", lambda: req("POST", "/api/subscriptions", SUB, '{"email": "token@robot.test"}', {"Content-Type": "application/json"}), 202, stored=True)
case("a box token asks for no subscription", lambda: req("POST", "/api/subscriptions", B1, '{"email": "box@robot.test"}', {"Content-Type": "application/json"}), 403)
case("an unknown token asks for no subscription", lambda: req("POST", "/api/subscriptions", "rbt_" + "0" * 40, '{"email": "nobody@robot.test"}', {"Content-Type": "application/json"}), 401)
# (others' requests, as robotd would have stored them from elsewhere)
sql("INSERT INTO mail_addresses (email, token) SELECT 'all' || g || '@robot.test', robot_random_token() FROM generate_series(1, 100) g; "
    "INSERT INTO subscriptions (email, client) SELECT 'all' || g || '@robot.test', '10.0.0.' || g FROM generate_series(1, 100) g")
case("the 101st subscription of the hour, from anyone", lambda: req("POST", "/api/subscriptions", None, '{"email": "late@robot.test"}', {"Content-Type": "application/json"}), 429, "100 confirmations")
sql("DELETE FROM subscriptions WHERE email LIKE 'all%@robot.test'; DELETE FROM mail_addresses WHERE email LIKE 'all%@robot.test'")

# robotd is still there and serving.
case("robotd still answers /api/status", lambda: req("GET", "/api/status"), 200)
case("robotd still answers /metrics", lambda: req("GET", "/metrics"), 200)

# The caller numbers its own checks after these and prints the plan.
with open(COUNT_FILE, "w") as f:
    f.write("%d\n" % n)
sys.exit(1 if failed else 0)
