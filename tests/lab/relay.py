#!/usr/bin/env python3
# relay.py LISTEN_PORT TARGET_HOST TARGET_PORT DELAY_MS JITTER_MS PORTFILE:
# a TCP relay that delays what it carries: it listens on 127.0.0.1 (in a
# lab host's network namespace, tests/lab/netlab.sh), and each chunk
# read from one side is written to the other DELAY_MS +- JITTER_MS
# (uniform) after it came, in order.  This kernel has no netem; this
# gives a box's link to robotd its latency.  LISTEN_PORT 0: any, written
# to PORTFILE.  Until killed.
import random
import socket
import sys
import threading
import time

port, host, tport, delay, jitter, portfile = sys.argv[1:7]
DELAY, JITTER = float(delay) / 1000, float(jitter) / 1000
rng = random.Random()


def pump(src, dst):
    # Chunks leave in order: each no sooner than the one before it.
    last = 0.0
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            due = max(last, time.monotonic() + DELAY + rng.uniform(-JITTER, JITTER))
            wait = due - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            last = due
            dst.sendall(data)
    except OSError:
        pass
    for s in (src, dst):
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def serve(client):
    try:
        up = socket.create_connection((host, int(tport)), timeout=30)
        up.settimeout(None)
    except OSError:
        client.close()
        return
    threading.Thread(target=pump, args=(client, up), daemon=True).start()
    threading.Thread(target=pump, args=(up, client), daemon=True).start()


ls = socket.socket()
ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
ls.bind(("127.0.0.1", int(port)))
ls.listen(128)
with open(portfile + ".tmp", "w") as f:
    f.write("%d\n" % ls.getsockname()[1])
import os
os.rename(portfile + ".tmp", portfile)
while True:
    c, _ = ls.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
