#!/usr/bin/env python3
# notifysink.py SOCKET OUT: a service manager's notification socket
# (sd_notify(3)) for the tests: binds the unix datagram socket SOCKET and
# appends each message it gets to OUT, one line a message (its lines
# joined by "|"), until killed.
import os
import socket
import sys

path, out = sys.argv[1:3]
if os.path.exists(path):
    os.unlink(path)
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(path)
with open(out, "a", buffering=1) as f:
    while True:
        data = s.recv(4096)
        f.write(data.decode("utf-8", "replace").replace("\n", "|") + "\n")
