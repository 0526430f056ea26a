#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The command-line conventions, without a guest: options anywhere on the
line, each command's own options, -V, verify --prometheus (checked by
promtool), read -o's file (new, 0600, no symlink) and the bash
completions."""
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOP_DIR = os.path.join(HERE, "..", "..")
BUILD = os.path.join(TOP_DIR, "build", "tools")
DUMP = os.environ.get("KTREPL_DUMP",
                      os.path.join(BUILD, "ktrepl-dump", "ktrepl-dump"))
TOP = os.environ.get("KTREPL_TOP",
                     os.path.join(BUILD, "ktrepl-top", "ktrepl-top"))
VERSION = open(os.path.join(TOP_DIR, "VERSION")).read().strip()
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                ".."))
from ktrepl_tap import Tap  # noqa: E402

tap = Tap(header=False)
ok = tap.ok


def run(*args, tool=DUMP):
    r = subprocess.run([tool, *args], capture_output=True, text=True,
                       timeout=60)
    return r.returncode, r.stdout, r.stderr


tap.header()
tap.plan(41)
tmp = tempfile.mkdtemp(prefix="ktrepl-cli-")
nowhere = os.path.join(tmp, "no-debugfs")

for tool, name in ((DUMP, "ktrepl-dump"), (TOP, "ktrepl-top")):
    rc, out, err = run("-V", tool=tool)
    ok(rc == 0 and out.startswith(f"{name} {VERSION}\n"),
       f"{name} -V prints its version ({VERSION})", out + err)
    rc, out, err = run("--version", "-j", tool=tool)
    v = json.loads(out) if rc == 0 and out.startswith("{") else {}
    ok(v.get("program") == name and v.get("program_version") == VERSION
       and v.get("abi") == 1, f"{name} --version -j is JSON", out + err)

# a global option after the command and its own options
rc, out, err = run("--debugfs", nowhere, "walk", "--va", "0x1", "-j")
e = json.loads(out) if out.startswith("{") else {}
ok(rc == 2 and "not found" in e.get("error", "") and not err,
   "walk --va X -j: -j after the command makes the error JSON", out + err)
rc, out2, err = run("-j", "--debugfs", nowhere, "walk", "--va", "0x1")
ok(out2 == out, "and equals -j given first", out2)
rc, out, err = run("--debugfs", nowhere, "walk", "--node=1", "--region",
                   "text")
ok(rc == 2 and "not found" in err, "--opt=value and --opt value both parse",
   err)

for args, msg in ((["summary", "--tap"], "summary does not take --tap"),
                  (["verify", "--node", "1"], "verify does not take --node"),
                  (["walk", "--all"], "walk does not take --all"),
                  (["verify", "extra"], "unexpected argument 'extra'"),
                  (["diff", "--all"], "--all goes with --against-vmlinux"),
                  (["verify", "--tap", "--prometheus"],
                   "--tap or --prometheus, not both"),
                  (["walk", "--node"], "--node needs an argument"),
                  (["walk", "-n"], "-n needs an argument"),
                  (["--bogus", "summary"], "--bogus is not an option"),
                  (["--json=1", "summary"], "--json takes no argument"),
                  (["--vmcore=x", "-yj", "summary"], "-y is not an option"),
                  (["frobnicate"], "unknown command 'frobnicate'")):
    rc, out, err = run("--debugfs", nowhere, *args)
    ok(rc == 2 and msg in out + err, f"{' '.join(args)}: exit 2, '{msg}'",
       out + err)

# under -j an option error is JSON too, wherever -j stands
for args, msg in ((["--bogus", "summary", "-j"], "--bogus is not an option"),
                  (["-j", "walk", "--node"], "--node needs an argument"),
                  (["-jx", "summary"], "-x is not an option")):
    rc, out, err = run("--debugfs", nowhere, *args)
    try:
        doc = json.loads(out)
    except ValueError:
        doc = {}
    ok(rc == 2 and not err and msg in doc.get("error", "") and
       set(doc) == {"version", "error"},
       f"{' '.join(args)}: exit 2, one JSON error object naming '{msg}'",
       f"rc {rc}\nstdout {out!r}\nstderr {err!r}")

# --prometheus where nothing can be checked: the fleet still sees a sample
promtool = shutil.which("promtool")
rc, out, err = run("--debugfs", nowhere, "verify", "--prometheus")
ok(rc == 2 and "ktrepl_verify_up 0\n" in out and "not found" in err,
   "verify --prometheus without ktrepl: exit 2, ktrepl_verify_up 0",
   out + err)
if promtool:
    r = subprocess.run([promtool, "check", "metrics"], input=out,
                       capture_output=True, text=True)
    ok(r.returncode == 0, "promtool check metrics accepts it",
       r.stdout + r.stderr)
else:
    tap.skip("promtool check metrics", "no promtool (Debian: prometheus)")
prom = os.path.join(tmp, "ktrepl.prom")
rc, out, err = run("--debugfs", nowhere, "verify", f"--prometheus={prom}")
ok(rc == 2 and not out and os.path.exists(prom) and
   os.listdir(tmp) == ["ktrepl.prom"] and
   oct(os.stat(prom).st_mode & 0o777) == "0o644",
   "--prometheus=FILE: written whole (renamed into place, 0644), stdout "
   "empty, no temporary left", f"{os.listdir(tmp)} {out} {err}")
rc, out, err = run("--debugfs", nowhere, "verify",
                   f"--prometheus={nowhere}/x/y.prom")
ok(rc == 2 and "y.prom" in err, "--prometheus into a missing directory: "
   "exit 2 naming it", err)

# read -o: the file holds physical memory, so it is created new, 0600,
# never through a symlink and never over an existing file
rdir = os.path.join(tmp, "read")
os.mkdir(rdir)
image = os.path.join(rdir, "image")
mem = bytes((i * 7 + 3) & 0xff for i in range(8192))
with open(image, "wb") as f:
    f.write(mem)
old_umask = os.umask(0)     # the mode is the tool's, whatever the umask
out_file = os.path.join(rdir, "out.bin")
rc, out, err = run("--raw", f"{image}@0x100000", "read", "-o", out_file,
                   "0x100010", "32", "0x101000", "16")
ok(rc == 0 and open(out_file, "rb").read() == mem[16:48] + mem[4096:4112],
   "read -o FILE: the ranges' bytes, in order", out + err)
ok(os.path.exists(out_file) and
   oct(os.stat(out_file).st_mode & 0o777) == "0o600",
   "read -o FILE: created 0600 (umask 0)",
   oct(os.stat(out_file).st_mode) if os.path.exists(out_file) else "none")
victim = os.path.join(rdir, "victim")
with open(victim, "w") as f:
    f.write("keep me\n")
os.chmod(victim, 0o644)
link = os.path.join(rdir, "link")
os.symlink(victim, link)
rc, out, err = run("--raw", image, "read", "-o", link, "0", "16")
ok(rc == 2 and "symbolic link" in err and
   open(victim).read() == "keep me\n" and
   os.stat(victim).st_mode & 0o777 == 0o644 and os.path.islink(link),
   "read -o SYMLINK: exit 2, refused; the target untouched", out + err)
dangling = os.path.join(rdir, "dangling")
os.symlink(os.path.join(rdir, "planted"), dangling)
rc, out, err = run("--raw", image, "read", "-o", dangling, "0", "16")
ok(rc == 2 and "symbolic link" in err and
   not os.path.exists(os.path.join(rdir, "planted")),
   "read -o DANGLING-SYMLINK: exit 2, its target not created", out + err)
rc, out, err = run("--raw", image, "read", "-o", victim, "0", "16")
ok(rc == 2 and "already exists" in err and
   open(victim).read() == "keep me\n",
   "read -o EXISTING: exit 2, the file untouched", out + err)
rc, out, err = run("-j", "--raw", image, "read", "-o", link, "0", "16")
e = json.loads(out) if out.startswith("{") else {}
ok(rc == 2 and "symbolic link" in e.get("error", "") and not err,
   "read -o SYMLINK -j: the error is JSON", out + err)
partial = os.path.join(rdir, "partial")
rc, out, err = run("--raw", image, "read", "-o", partial, "0", "16",
                   "0x100000", "16")
ok(rc == 2 and "outside the image" in err and not os.path.exists(partial),
   "read -o with a range it cannot read: exit 2, no file left", out + err)
rc, out, err = run("--raw", f"{image}@0x100000", "read", "-o", "/dev/null",
                   "0x100010", "32", "0x101000", "16")
ok(rc == 0 and not err, "read -o /dev/null: the null device is the one "
   "existing file taken (bench.py's raw read)", f"rc {rc}\n{out}{err}")
rc, out, err = run("--raw", image, "read", "-o", "/dev/null", "0", "16",
                   "0x100000", "16")
st = os.stat("/dev/null")
ok(rc == 2 and "outside the image" in err and stat.S_ISCHR(st.st_mode),
   "read -o /dev/null with a range it cannot read: exit 2, and the null "
   "device is not removed", out + err)
os.umask(old_umask)

# a kcore refused to someone not root says it needs root, not lockdown
setpriv = shutil.which("setpriv")
if os.geteuid() == 0 and setpriv:
    os.chmod(tmp, 0o755)
    os.chmod(rdir, 0o755)
    os.chmod(image, 0o400)
    r = subprocess.run([setpriv, "--reuid=65534", "--regid=65534",
                        "--clear-groups", DUMP, "--kcore", image, "read",
                        "0", "16"], capture_output=True, text=True,
                       timeout=60)
    ok(r.returncode == 2 and r.stderr.strip() ==
       f"ktrepl-dump: error: {image}: Permission denied "
       "(reading kcore needs root)",
       "kcore unreadable, not root: exit 2, 'reading kcore needs root'",
       r.stdout + r.stderr)
else:
    tap.skip("kcore unreadable, not root", "needs root and setpriv")

# the bash completions, through bash-completion's own loader
compl = "/usr/share/bash-completion/bash_completion"
script = f"""
source {compl}
source {TOP_DIR}/tools/bash-completion/ktrepl-dump
source {TOP_DIR}/tools/bash-completion/ktrepl-top
comp() {{
	COMP_WORDS=("$@"); COMP_CWORD=$((${{#COMP_WORDS[@]}} - 1))
	COMP_LINE="$*"; COMP_POINT=${{#COMP_LINE}}; COMPREPLY=()
	$F "${{COMP_WORDS[0]}}" "${{COMP_WORDS[-1]}}" "${{COMP_WORDS[-2]}}"
	echo "${{COMPREPLY[*]}}"
}}
F=_ktrepl_dump
comp ktrepl-dump wa
comp ktrepl-dump -j --vmcore x v
comp ktrepl-dump walk --
comp ktrepl-dump diff --region ''
F=_ktrepl_top
comp ktrepl-top --event ''
"""
if os.path.exists(compl):
    r = subprocess.run(["bash", "-c", script], capture_output=True,
                       text=True)
    lines = r.stdout.splitlines() + [""] * 5
    ok(lines[0] == "walk", "completes a command", r.stdout + r.stderr)
    ok(lines[1] == "verify", "past global options and their values",
       r.stdout)
    ok(set(["--node", "--region", "--va", "--json"]) <=
       set(lines[2].split()) and "--tap" not in lines[2],
       "offers walk's own options and the global ones, not verify's",
       lines[2])
    ok(lines[3] == "text rodata", "completes region names", lines[3])
    ok(lines[4] == "cpu-clock cycles", "ktrepl-top: completes --event",
       lines[4])
else:
    for desc in ("completes a command",
                 "past global options and their values",
                 "offers walk's own options and the global ones, not verify's",
                 "completes region names", "ktrepl-top: completes --event"):
        tap.skip(desc, "no bash-completion package")

shutil.rmtree(tmp, ignore_errors=True)
tap.done()
