#!/usr/bin/env python3
# bench/probe.py URL TOKEN BOX SECONDS RATE: the latency a box sees.  At
# RATE requests a second for SECONDS, alternates GET /api/status and a
# lease request of BOX (?wait=0, a database round trip), one at a time on
# fresh connections; prints the p50, p99 and worst latency in ms.
import http.client
import sys
import time
import urllib.parse

URL, TOKEN, BOX, SECONDS, RATE = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4]), float(sys.argv[5])
u = urllib.parse.urlparse(URL)
lat = []
end = time.monotonic() + SECONDS
i = 0
while time.monotonic() < end:
    t0 = time.monotonic()
    c = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
    if i % 2:
        c.request("POST", "/api/boxes/%s/lease?wait=0" % BOX, headers={"Authorization": "Bearer " + TOKEN})
    else:
        c.request("GET", "/api/status")
    c.getresponse().read()
    c.close()
    lat.append((time.monotonic() - t0) * 1000)
    i += 1
    time.sleep(max(0, 1 / RATE - (time.monotonic() - t0)))
lat.sort()
print("requests %d p50_ms %.1f p99_ms %.1f max_ms %.1f" % (
    len(lat), lat[len(lat) // 2], lat[min(len(lat) - 1, int(len(lat) * 0.99))], lat[-1]))
