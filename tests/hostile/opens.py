#!/usr/bin/env python3
"""opens.py STUDY TRACE... - from `strace -f -y -e trace=open,openat,
openat2,execve,clone,clone3,fork,vfork` logs, list every file that a dehbq
process (not its trainer) opened successfully outside STUDY and outside the
dynamic loader's and the kernel's pseudo files.  With -y strace prints the
path of the returned descriptor, i.e. after symlinks and "..", so a file
opened through a hostile symlink shows up under its real name."""
import os, re, sys

study = os.path.realpath(sys.argv[1])
ALLOW = ("/etc/ld.so.cache", "/lib/", "/lib64/", "/usr/lib/", "/usr/lib64/",
         "/dev/null", "/dev/urandom", "/dev/random", "/proc/", "/sys/",
         "/etc/localtime", "/usr/share/zoneinfo/", "/dev/pts/", "/dev/tty")
state = {}  # pid -> "pre" | "dehbq" | "other"
bad = {}
nopen = 0
for tr in sys.argv[2:]:
    for line in open(tr, errors="replace"):
        m = re.match(r"(\d+) +(\w+)\((.*)", line)
        if not m:
            continue
        pid, call, rest = m.groups()
        st = state.get(pid, "pre")
        if call in ("clone", "clone3", "fork", "vfork"):
            r = re.search(r"= (\d+)$", line.strip())
            if r:
                state[r.group(1)] = st
            continue
        if call == "execve":
            if line.rstrip().endswith("= 0") or "= 0 " in line or "resumed" in line:
                pass
            prog = re.match(r'"([^"]*)"', rest)
            if prog and " = 0" in line:
                state[pid] = "dehbq" if "/dehbq-" in prog.group(1) else (
                    "pre" if prog.group(1).endswith(("setpriv", "strace")) and st == "pre" else "other")
            continue
        if st != "dehbq":
            continue
        r = re.search(r"= (\d+)<([^>]*)>", line)
        if not r:
            continue
        nopen += 1
        path = r.group(2)
        if path == study or path.startswith(study + "/"):
            continue
        if path.startswith(ALLOW):
            continue
        bad[path] = bad.get(path, 0) + 1
print("opens by dehbq processes: %d; outside the study: %d distinct" % (nopen, len(bad)))
for p, n in sorted(bad.items()):
    print("OUTSIDE %s (%d)" % (p, n))
sys.exit(1 if bad else 0)
