#!/usr/bin/python3
# smtpsink.py PORTFILE MAILDIR [PORT [HOST]]: a real SMTP server (aiosmtpd,
# Debian's python3-aiosmtpd) that stores every mail it takes in MAILDIR
# (new/), as the peer of robotd's mail.  It listens on HOST:PORT
# (127.0.0.1, else a free port) and writes the port to PORTFILE once it
# listens.
# A recipient whose local part starts with "refused" gets 550 at RCPT TO;
# one that starts with "later" gets 451 (try again later); a mail to one
# that starts with "slow" is stored, then MAILDIR.holding is made and the
# 250 comes 8 s later.  Run it with
# /usr/bin/python3: the pyenv python3 does not see Debian's packages.
import asyncio
import mailbox
import os
import signal
import socket
import sys
import time

from aiosmtpd.controller import Controller

portfile, maildir = sys.argv[1], sys.argv[2]
port = int(sys.argv[3]) if len(sys.argv) > 3 else 0
host = sys.argv[4] if len(sys.argv) > 4 else "127.0.0.1"
if port == 0:
    s = socket.socket()
    s.bind((host, 0))
    port = s.getsockname()[1]
    s.close()
box = mailbox.Maildir(maildir, create=True)


class Handler:
    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        local = address.split("@")[0]
        if local.startswith("refused"):
            return "550 5.1.1 no such user here"
        if local.startswith("later"):
            return "451 4.3.0 try again later"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        box.add(envelope.original_content)
        if any(a.startswith("slow") for a in envelope.rcpt_tos):
            open(maildir + ".holding", "w").close()
            await asyncio.sleep(8)
        return "250 OK stored"


c = Controller(Handler(), hostname=host, port=port)
c.start()
with open(portfile + ".tmp", "w") as f:
    f.write("%d\n" % port)
os.rename(portfile + ".tmp", portfile)
stop = False


def on_term(sig, frame):
    global stop
    stop = True


signal.signal(signal.SIGTERM, on_term)
signal.signal(signal.SIGINT, on_term)
while not stop:
    time.sleep(0.1)
c.stop()
