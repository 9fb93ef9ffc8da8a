#!/usr/bin/env python3
# submit_stream.py URL TOKEN ACKED STOP: submits small jobs from four
# threads, each with a commit of its own, until the file STOP exists.
# Every submit robotd acknowledged (201) is appended to ACKED as
# "SUBMISSION COMMIT", flushed at once; refusals (503 while the database
# is down) and refused connections are counted on stderr.
import http.client
import json
import os
import sys
import threading
import urllib.parse

URL, TOKEN, ACKED, STOP = sys.argv[1:5]
u = urllib.parse.urlparse(URL)
JOB = ("suite: dd-write\ntestcase: dd-write\ndisk: 1LOOP_64M\nfs: ext4\n"
       "nr_threads: 1dd\nruntime: 1s\ndd:\n  bs: 1M\n")
lock = threading.Lock()
out = open(ACKED, "a")
counts = {"acked": 0, "refused": 0, "failed": 0}


def stream(t):
    i = 0
    while not os.path.exists(STOP):
        i += 1
        commit = "%08x%032x" % (t, i)
        try:
            c = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
            c.request("POST", "/api/jobs?tbox_group=lab&repeat=1&commit=" + commit, JOB,
                      {"Authorization": "Bearer " + TOKEN})
            r = c.getresponse()
            body = r.read()
            c.close()
        except OSError:
            with lock:
                counts["failed"] += 1
            continue
        with lock:
            if r.status == 201:
                out.write("%d %s\n" % (json.loads(body)["submission"], commit))
                out.flush()
                counts["acked"] += 1
            else:
                counts["refused"] += 1


threads = [threading.Thread(target=stream, args=(t,)) for t in range(4)]
for th in threads:
    th.start()
for th in threads:
    th.join()
print("acked %(acked)d refused %(refused)d failed %(failed)d" % counts, file=sys.stderr)
