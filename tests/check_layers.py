#!/usr/bin/env python3
# check_layers.py SOURCE_DIR: the tree's layering (DESIGN.md section 3,
# docs/architecture.md) as a test.  TAP output, one check per rule:
#
# 1. a file includes headers of its own layer and of the layers it may
#    use only; robotd's main (the composition root) may also include
#    the reporters and the web layer;
# 2. no two modules include each other's headers (x.c includes y.h and
#    y.c includes x.h);
# 3. each foreign library has its glue files, and no other file
#    includes its header; the database glue (db.h) is the store's;
# 4. every .c of a layer is built: meson.build names it (a file left
#    out is dead code no compiler reads, or a build that links by luck);
# 5. every state enum (enum X_state) has its state machine table
#    (robot/core/fsm.h: FSM() in its module's .c), and where one is,
#    the state is written by FSM_SET() alone (its setter), never by a
#    plain "->state =".
import os
import re
import sys

root = sys.argv[1]

# Each layer and the layers it may include, itself included.
LAYERS = {
    "robot/core": {"robot/core"},
    "robot/analysis": {"robot/core", "robot/analysis"},
    "jobs": {"robot/core", "robot/analysis", "jobs"},
    "jobs/box": {"robot/core", "robot/analysis", "jobs", "jobs/box"},
    "robot/daemon": {"robot/core", "robot/analysis", "jobs", "robot/daemon",
                     "robot/daemon/store"},
    "robot/daemon/store": {"robot/core", "robot/analysis", "jobs",
                           "robot/daemon", "robot/daemon/store"},
    "reporters": {"robot/core", "robot/analysis", "jobs", "robot/daemon",
                  "robot/daemon/store", "reporters"},
    "web": {"robot/core", "robot/analysis", "jobs", "robot/daemon",
            "robot/daemon/store", "reporters", "web", "web/pages"},
    "web/pages": {"robot/core", "robot/analysis", "jobs", "robot/daemon",
                  "robot/daemon/store", "reporters", "web", "web/pages"},
    "robot/cli": {"robot/core", "robot/analysis", "jobs", "robot/cli"},
}
# Composition roots: files that wire several layers together.
ROOTS = {
    "robot/daemon/robotd.c": {"reporters", "web"},
}
# Foreign headers and the only files that may include them.
GLUE = {
    "libpq-fe.h": {"robot/daemon/db.c"},
    "microhttpd.h": {"web/httpd.c"},
    "curl/curl.h": {"robot/core/client.c", "reporters/curl.c"},
    "openssl/evp.h": {"reporters/crypto.c"},
    "openssl/hmac.h": {"reporters/crypto.c"},
    # db.h: db.c, the store (store.c and store/) and robotd's main;
    # store/call.h, the store's shared part, the store alone.
    "robot/daemon/db.h": {"robot/daemon/db.c", "robot/daemon/store.c",
                          "robot/daemon/store/*",
                          "robot/daemon/robotd.c"},
    "robot/daemon/store/call.h": {"robot/daemon/store.c",
                                  "robot/daemon/store/*"},
}


def layer_of(path):
    d = os.path.dirname(path)
    return d if d in LAYERS else None


files = []
for layer in LAYERS:
    full = os.path.join(root, layer)
    if not os.path.isdir(full):
        continue
    for name in sorted(os.listdir(full)):
        if name.endswith((".c", ".h")):
            files.append(os.path.join(layer, name))

include_re = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)
includes = {}
for f in files:
    text = open(os.path.join(root, f), encoding="utf-8",
                errors="replace").read()
    includes[f] = [(m.group(1), m.group(2)) for m in include_re.finditer(text)]

problems = {1: [], 2: [], 3: [], 4: [], 5: []}
for f, incs in includes.items():
    mine = layer_of(f)
    for kind, inc in incs:
        if kind == '"':
            theirs = layer_of(inc)
            if theirs is None:
                problems[1].append(f"{f}: includes \"{inc}\", which is in "
                                   f"no layer (write it from the top of "
                                   f"the tree)")
            elif theirs not in LAYERS[mine] and \
                    theirs not in ROOTS.get(f, set()):
                problems[1].append(f"{f}: {mine} includes {inc} of "
                                   f"{theirs}, a layer above it or beside "
                                   f"it")
        allowed = GLUE.get(inc)
        if allowed is not None and f not in allowed and \
                os.path.dirname(f) + "/*" not in allowed:
            problems[3].append(f"{f}: includes {inc}, which only "
                               f"{', '.join(sorted(allowed))} may")

# Modules: x.c with x.h beside it.  x includes y when x.c or x.h does.
def module(path):
    return path[:-2]

uses = {}
for f, incs in includes.items():
    for kind, inc in incs:
        if kind == '"' and inc.endswith(".h") and module(inc) != module(f):
            uses.setdefault(module(f), set()).add(module(inc))
for a in sorted(uses):
    for b in sorted(uses[a]):
        if a < b and a in uses.get(b, set()):
            problems[2].append(f"{a} and {b} include each other's headers")

meson = open(os.path.join(root, "meson.build"), encoding="utf-8").read()
built = set(re.findall(r"'([^']+\.c)'", meson))
for f in files:
    if f.endswith(".c") and f not in built:
        problems[4].append(f"{f}: not in meson.build")

texts = {f: open(os.path.join(root, f), encoding="utf-8",
                 errors="replace").read() for f in files}
for f in files:
    for m in re.finditer(r"^enum (\w+_state) \{([^}]*)\}", texts[f], re.M):
        c = f[:-2] + ".c"
        states = set(re.findall(r"^\s*([A-Z][A-Z0-9_]*)", m.group(2), re.M))
        lasts = re.findall(r"=\s*FSM\([^;]*,\s*([A-Z][A-Z0-9_]*)\);",
                           texts.get(c, ""))
        if not states & set(lasts):
            problems[5].append(f"{f}: enum {m.group(1)} has no FSM() "
                               f"table in {c}")
    if re.search(r"=\s*FSM\(", texts[f]):
        for n, line in enumerate(texts[f].split("\n"), 1):
            if re.search(r"->state\s*=[^=]", line) and "FSM_SET" not in line:
                problems[5].append(f"{f}:{n}: the state written without "
                                   f"FSM_SET: {line.strip()}")

titles = {
    1: "every file includes only its own layer and the layers below it",
    2: "no two modules include each other's headers",
    3: "foreign libraries and the database glue only in their glue files",
    4: "every .c of a layer is in meson.build",
    5: "every state machine's state is set by FSM_SET alone",
}
print(f"1..{len(titles)}")
failed = 0
for n, title in titles.items():
    if problems[n]:
        failed += 1
        print(f"not ok {n} - {title}")
        for p in problems[n]:
            print(f"# {p}")
    else:
        print(f"ok {n} - {title} ({len(files)} files)")
sys.exit(1 if failed else 0)
