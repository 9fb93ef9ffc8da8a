#!/usr/bin/env python3
# simbox.py URL TOKEN BOX GROUP STOPFILE [COMMIT=SHIFT[~NOISE][@A,B..] ...]
#           [COMMIT=fail ...] [--noise=PCT] [--seed=N] [--delay=S]
#           [--offset=PCT] [--drift=PCT] [--step=N:PCT]
#           [--outliers=P:FACTOR] [--tails=DF] [--uploads=N] [--hold=N]
#           [--series=1] [--profile=1] [--resilient=1 [--heartbeat=S]]:
# a simulated test box for the daemon's decisions.  It registers, leases
# runs and uploads for each a result document whose KPI
# (dd.write_bytes_per_sec, 100 MB/s) is moved by SHIFT percent at COMMIT
# (e.g. b2=-10) with Gaussian noise of PCT percent (default 1; NOISE
# percent at that commit, whose first runs are off by exactly A, B, ...
# percent more, without noise: a scatter that no first look can call),
# and 20 monitor metrics that do not move (and --extra-metric=NAME,
# moved as the KPI is), S seconds a run (default
# 0), until STOPFILE exists.  A COMMIT=fail run fails as a commit that
# cannot be provisioned does ("fault": "job").
#
# A lab's faults, each a property of the box whatever it runs: --offset
# (the box is PCT percent off its group), --drift (it moves by PCT
# percent a run, compounding), --step (from its Nth run on it is PCT
# percent off: a controller that changed its cache mode), --outliers (a
# run is off by FACTOR with probability P), --tails (the noise is
# Student's t with DF degrees of freedom, scaled to PCT: heavy tails).
# --uploads=N: it stops after N uploads, as a box that dies between two
# runs; --hold=N: after N uploads it leases one more run and stops
# without giving it back, as a box that dies during a run.
# --series=1: each document has a per-second series too (a disk's
# throughput swinging between 80 and 20 MB/s every 20 s) and its shape.
# --profile=1: and a profile's rows (perf-profile.*), the same in every
# run, one of them named as markup.
#
# It stands in for a box only to drive robotd's analysis with a chosen
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
SHIFT, OWN_NOISE, FIRST, FAIL = {}, {}, {}, set()
for c, p in (x.split("=", 1) for x in args[5:]):
    if p == "fail":
        FAIL.add(c)
        continue
    if "@" in p:
        p, first = p.split("@", 1)
        FIRST[c] = [float(x) / 100 for x in first.split(",")]
    if "~" in p:
        p, own = p.split("~", 1)
        OWN_NOISE[c] = float(own) / 100
    SHIFT[c] = float(p)
rng = random.Random(int(opts.get("seed", "1")))
u = urllib.parse.urlparse(URL)


# --resilient=1: a box on a network that drops and partitions (tests/lab/):
# a call that gets no answer is 0 and is tried again, the lease is kept
# by heartbeats (--heartbeat=S) while a run lasts, and an upload robotd
# refuses (its lease ended while the box was cut off) is logged and let
# go, as robot-box does.  An https URL is verified against the system's
# CAs or SSL_CERT_FILE.
RESILIENT = opts.get("resilient") == "1"


def call(method, path, body=None):
    conn = http.client.HTTPSConnection if u.scheme == "https" else http.client.HTTPConnection
    try:
        c = conn(u.hostname, u.port, timeout=float(opts.get("timeout", "60")))
        c.request(method, path, body, {"Authorization": "Bearer " + TOKEN})
        r = c.getresponse()
        data = r.read()
        c.close()
    except (OSError, http.client.HTTPException) as e:
        if not RESILIENT:
            raise
        print("%s: %s %s: %s" % (BOX, method, path, e), file=sys.stderr, flush=True)
        return 0, b""
    return r.status, data


def log(msg):
    print("%s %s: %s" % (time.strftime("%H:%M:%S"), BOX, msg), file=sys.stderr, flush=True)


while True:
    st, _ = call("POST", "/api/boxes/%s/register" % BOX, json.dumps(
        {"tbox_group": GROUP, "ram_disk_limit": 1 << 40, "fs": ["ext4", "xfs", "btrfs"]}))
    if st == 200 or not RESILIENT or os.path.exists(STOP):
        break
    time.sleep(1)
assert st == 200, st
OFFSET = float(opts.get("offset", "0")) / 100
DRIFT = float(opts.get("drift", "0")) / 100
STEP_AT, STEP = (opts.get("step", "0:0").split(":") + ["0"])[:2]
STEP_AT, STEP = int(STEP_AT), float(STEP) / 100
OUT_P, OUT_F = (float(x) for x in (opts.get("outliers", "0:1").split(":") + ["1"])[:2])
TAILS = float(opts.get("tails", "0"))
UPLOADS = int(opts.get("uploads", "0"))
HOLD = int(opts.get("hold", "-1"))


def noise(sd):
    if TAILS > 2:
        # Student's t scaled to unit variance.
        z = rng.gauss(0, 1) / (rng.gammavariate(TAILS / 2, 2 / TAILS) ** 0.5)
        return sd * z * ((TAILS - 2) / TAILS) ** 0.5
    return sd * rng.gauss(0, 1)


def box_factor(n):
    # What the box does to its nth run (from 0), whatever the commit.
    f = (1 + OFFSET) * (1 + DRIFT) ** n
    if STEP_AT and n >= STEP_AT:
        f *= 1 + STEP
    if OUT_P and rng.random() < OUT_P:
        f *= OUT_F
    return f


runs = 0
seen = {}  # runs uploaded per commit
while not os.path.exists(STOP):
    if UPLOADS and runs >= UPLOADS:
        break
    st, data = call("POST", "/api/boxes/%s/lease?wait=1" % BOX)
    if st != 200:
        if st == 0 or st >= 500:
            time.sleep(1)
        elif st in (401, 404, 409) and RESILIENT:
            log("lease: %d %s" % (st, data[:200]))
            if st == 401:
                break
            time.sleep(1)
            if st == 404:  # robotd lost the box: register again
                call("POST", "/api/boxes/%s/register" % BOX, json.dumps(
                    {"tbox_group": GROUP, "ram_disk_limit": 1 << 40,
                     "fs": ["ext4", "xfs", "btrfs"]}))
        continue
    lease = json.loads(data)
    if RESILIENT:
        log("lease %d: job %d" % (lease["lease"], lease["job_id"]))
    if runs == HOLD:
        break  # dies holding the lease
    end = time.monotonic() + float(opts.get("delay", "0"))
    beat = float(opts.get("heartbeat", "0"))
    while beat > 0 and time.monotonic() + beat < end:
        time.sleep(beat)
        st, _ = call("POST", "/api/leases/%d/heartbeat" % lease["lease"])
        if st != 200:
            log("lease %d: heartbeat %d" % (lease["lease"], st))
    time.sleep(max(0, end - time.monotonic()))
    commit = lease["commit"]
    k = seen[commit] = seen.get(commit, -1) + 1
    first = FIRST.get(commit, [])
    kpi = 100e6 * (1 + SHIFT.get(commit, 0) / 100) * box_factor(runs) * \
        (1 + (first[k] if k < len(first) else noise(OWN_NOISE.get(commit, NOISE))))
    stats = {"dd.write_bytes_per_sec": kpi}
    for i in range(20):
        stats["proc-vmstat.m%d" % i] = 5000 * (1 + 0.01 * rng.gauss(0, 1))
    if "extra-metric" in opts:
        # A metric of the given name, moved as the KPI is.
        stats[opts["extra-metric"]] = kpi / 1000
    doc = {"version": 1, "key": lease["key"], "tbox_group": GROUP, "box": BOX,
           "commit": commit, "status": "ok", "error": None, "job": lease["job"]["job"],
           "stats": stats}
    if "series" in opts:
        # A disk's throughput a second, a 20 s square wave between 80
        # and 20 MB/s, with the shape robot-box gives it.
        name = "dd.loop0.write_bytes_per_sec"
        doc["series"] = {name: [(80e6 if i % 20 < 10 else 20e6) for i in range(60)]}
        stats.update({name + ".peak": 80e6, name + ".trough": 20e6,
                      name + ".period_s": 20.0})
    if "profile" in opts:
        # A profiled run's rows, as robot-box folds them (docs/box.md).
        ev = "perf-profile.%s.cpu-clock.%s"
        stats.update({ev % ("self", "pvm_safe_halt_hc"): 45.5,
                      ev % ("children", "pvm_safe_halt_hc"): 45.5,
                      ev % ("self", "copy_user_generic"): 20.25,
                      ev % ("children", "copy_user_generic"): 20.25,
                      ev % ("self", "x<b>alert(3)</b>"): 1.5,
                      ev % ("self", "vfs_write"): 0.5,
                      ev % ("children", "vfs_write"): 30.0,
                      ev % ("calltrace", "vfs_write.ksys_write"): 30.0})
    if commit in FAIL:
        doc.update(status="failed", fault="job", stats={},
                   error="cannot provision %s: the build failed" % commit[:12])
    st, data = call("POST", "/api/leases/%d/result" % lease["lease"], json.dumps(doc))
    while RESILIENT and (st == 0 or st >= 500) and not os.path.exists(STOP):
        time.sleep(1)
        st, data = call("POST", "/api/leases/%d/result" % lease["lease"], json.dumps(doc))
    if RESILIENT and st != 200:
        log("lease %d: upload refused: %d %s" % (lease["lease"], st, data[:200]))
        continue
    if RESILIENT:
        log("lease %d: uploaded" % lease["lease"])
    assert st == 200, (st, data)
    runs += 1
print("%s: %d runs" % (BOX, runs), file=sys.stderr)
