#!/usr/bin/env python3
# tls_cycles.py URL CAFILE TOKENS SECONDS CONNS: lease cycles against
# robotd (a lease with wait=0, then an empty result's upload), as fast as
# it answers, from one client per box of TOKENS ("NAME TOKEN" lines), in
# threads; CONNS "fresh": a connection per request, as robot-box's
# libcurl easy calls make; "kept": one kept-alive connection per box.
# Prints cycles per second.
import http.client
import json
import ssl
import sys
import threading
import time
import urllib.parse

url, cafile, tokens, seconds, conns = sys.argv[1:6]
u = urllib.parse.urlparse(url)
ctx = ssl.create_default_context(cafile=cafile) if u.scheme == "https" else None
boxes = [line.split() for line in open(tokens) if line.strip()]
stop = time.time() + float(seconds)
counts = [0] * len(boxes)


def connect():
    if ctx is not None:
        return http.client.HTTPSConnection(u.hostname, u.port, context=ctx, timeout=30)
    return http.client.HTTPConnection(u.hostname, u.port, timeout=30)


def call(c, method, path, token, body=None):
    if c is None:
        c = connect()
        c.request(method, path, body, {"Authorization": "Bearer " + token})
        r = c.getresponse()
        data = r.read()
        c.close()
        return r.status, data
    c.request(method, path, body, {"Authorization": "Bearer " + token})
    r = c.getresponse()
    return r.status, r.read()


def box(i):
    name, token = boxes[i]
    c = connect() if conns == "kept" else None
    call(c, "POST", "/api/boxes/%s/register" % name, token,
         json.dumps({"tbox_group": "bench", "ram_disk_limit": 1 << 40, "fs": ["ext4"]}))
    while time.time() < stop:
        st, data = call(c, "POST", "/api/boxes/%s/lease?wait=0" % name, token)
        if st != 200:
            continue
        lease = json.loads(data)
        doc = {"version": 1, "key": lease["key"], "tbox_group": "bench", "box": name,
               "commit": lease["commit"], "status": "ok", "error": None,
               "job": lease["job"]["job"], "stats": {"dd.write_bytes_per_sec": 1e8}}
        st, _ = call(c, "POST", "/api/leases/%d/result" % lease["lease"], token, json.dumps(doc))
        if st == 200:
            counts[i] += 1


start = time.time()
threads = [threading.Thread(target=box, args=(i,)) for i in range(len(boxes))]
for t in threads:
    t.start()
for t in threads:
    t.join()
print("%.0f cycles/s" % (sum(counts) / (time.time() - start)))
