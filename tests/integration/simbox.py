#!/usr/bin/env python3
# simbox.py URL TOKEN BOX GROUP STOPFILE [COMMIT=SHIFT[~NOISE] ...]
#           [COMMIT=fail ...] [--noise=PCT] [--seed=N] [--delay=S]: a
# simulated test
# box for the daemon's decisions.  It registers, leases runs and uploads
# for each a result document whose KPI (dd.write_bytes_per_sec, 100 MB/s)
# is moved by SHIFT percent at COMMIT (e.g. b2=-10) with Gaussian noise
# of PCT percent (default 1; NOISE percent at that commit), and 20
# monitor metrics that do not move (and --extra-metric=NAME, moved as
# the KPI is), S seconds a run (default 0), until
# STOPFILE exists.  A COMMIT=fail
# run fails as a commit that cannot be provisioned does ("fault": "job").
# It
# stands in for a box only to drive robotd's analysis with a chosen
# truth: real boxes measure real filesystems elsewhere in the tests.
import http.client
import json
import os
import random
import sys
import time
import urllib.parse

args = [a for a in sys.argv[1:] if not a.startswith("--")]
opts = dict(a[2:].split("=", 1) for a in sys.argv[1:] if a.startswith("--"))
URL, TOKEN, BOX, GROUP, STOP = args[:5]
NOISE = float(opts.get("noise", "1")) / 100
SHIFT, OWN_NOISE, FAIL = {}, {}, set()
for c, p in (x.split("=", 1) for x in args[5:]):
    if p == "fail":
        FAIL.add(c)
        continue
    if "~" in p:
        p, own = p.split("~", 1)
        OWN_NOISE[c] = float(own) / 100
    SHIFT[c] = float(p)
rng = random.Random(int(opts.get("seed", "1")))
u = urllib.parse.urlparse(URL)


def call(method, path, body=None):
    c = http.client.HTTPConnection(u.hostname, u.port, timeout=60)
    c.request(method, path, body, {"Authorization": "Bearer " + TOKEN})
    r = c.getresponse()
    data = r.read()
    c.close()
    return r.status, data


st, _ = call("POST", "/api/boxes/%s/register" % BOX, json.dumps(
    {"tbox_group": GROUP, "ram_disk_limit": 1 << 40, "fs": ["ext4", "xfs", "btrfs"]}))
assert st == 200, st
runs = 0
while not os.path.exists(STOP):
    st, data = call("POST", "/api/boxes/%s/lease?wait=1" % BOX)
    if st != 200:
        continue
    lease = json.loads(data)
    time.sleep(float(opts.get("delay", "0")))
    commit = lease["commit"]
    kpi = 100e6 * (1 + SHIFT.get(commit, 0) / 100) * \
        (1 + OWN_NOISE.get(commit, NOISE) * rng.gauss(0, 1))
    stats = {"dd.write_bytes_per_sec": kpi}
    for i in range(20):
        stats["proc-vmstat.m%d" % i] = 5000 * (1 + 0.01 * rng.gauss(0, 1))
    if "extra-metric" in opts:
        # A metric of the given name, moved as the KPI is.
        stats[opts["extra-metric"]] = kpi / 1000
    doc = {"version": 1, "key": lease["key"], "tbox_group": GROUP, "box": BOX,
           "commit": commit, "status": "ok", "error": None, "job": lease["job"]["job"],
           "stats": stats}
    if commit in FAIL:
        doc.update(status="failed", fault="job", stats={},
                   error="cannot provision %s: the build failed" % commit[:12])
    st, data = call("POST", "/api/leases/%d/result" % lease["lease"], json.dumps(doc))
    assert st == 200, (st, data)
    runs += 1
print("%s: %d runs" % (BOX, runs), file=sys.stderr)
