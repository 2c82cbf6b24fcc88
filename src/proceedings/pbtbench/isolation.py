"""What a sandboxed test can see: a fresh root file system in its own namespaces (issue 16).

The launcher (a POSIX shell script run by util-linux `unshare`) mounts a small tmpfs as the new
root and places in it, read-only unless said otherwise:

    /usr (+ /bin, /lib... links)   system programs and shared libraries
    <interpreter prefix>           the Python installation, at its own path, its site-packages masked
    /sandbox/runtime/site-packages pytest, Hypothesis and the library's dependencies (runtime.py)
    /sandbox/lib/site-packages     the overlay: the library with the bugs under test
    /sandbox/run                   the run folder (read-write): tests/, home/, tmp/, storage/, out/
    /proc, /dev/{null,zero,random,urandom}, /tmp (tmpfs)

then `pivot_root`s into it, detaches the old root and runs the command as an unprivileged user.
The namespace's first process dies with its launcher (SIGKILL), and every process in the
namespace with it, so a killed harness leaves nothing running.
Nothing else exists there: not the repository, not the installed clean library, not the patches,
lock files, docs or reference properties. Network: a fresh namespace with no interface up.

- `namespaces` (the caller is root): user `nobody` (65534) in the initial user namespace.
- `user-namespaces` (an unprivileged caller): a user namespace mapping the caller to 65534, whose
  capabilities serve only the mounts and are dropped before the command runs (its host uid stays
  the caller's own, never root).
"""

from __future__ import annotations

import functools
import glob
import os
import shlex
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path

NOBODY = 65534
SANDBOX_ROOT = "/sandbox"
RUN = f"{SANDBOX_ROOT}/run"
RUNTIME = f"{SANDBOX_ROOT}/runtime/site-packages"
OVERLAY = f"{SANDBOX_ROOT}/lib/site-packages"
DEVICES = ("null", "zero", "random", "urandom")
ETC_FILES = ("ld.so.cache", "localtime")  # shared-library cache and time zone; nothing else of /etc
MERGED_USR = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")


@dataclass(frozen=True)
class Interpreter:
    executable: str  # the real interpreter binary (a virtual environment's python is a link to it)
    prefix: str  # its installation, mounted read-only at the same path
    hidden: tuple[str, ...]  # its site-packages folders (and the system's), masked by empty tmpfs


@functools.lru_cache(maxsize=None)
def host_interpreter() -> Interpreter:
    executable = os.path.realpath(getattr(sys, "_base_executable", sys.executable))
    prefix = os.path.realpath(sys.base_prefix)
    base = {"base": sys.base_prefix, "platbase": sys.base_exec_prefix}
    candidates = {os.path.realpath(sysconfig.get_path(k, vars=base)) for k in ("purelib", "platlib")}
    candidates |= set(glob.glob("/usr/lib/python3*/*-packages")) | set(glob.glob("/usr/local/lib/python3*/*-packages"))
    hidden = tuple(sorted(p for p in candidates if os.path.isdir(p)))
    return Interpreter(executable, prefix, hidden)


def launcher(level: str, run_dir: Path, runtime: Path, overlay: Path | None) -> list[str]:
    """argv prefix that runs a command (its argv appended) inside the fresh root as 65534."""
    script = _mount_script(run_dir, runtime, overlay, drop_uid=level == "namespaces")
    if level == "namespaces":
        namespaces = ["unshare"]
    else:
        namespaces = ["unshare", "--user", f"--map-user={NOBODY}", f"--map-group={NOBODY}", "--keep-caps"]
    return namespaces + ["--net", "--pid", "--fork", "--kill-child", "--mount", "--propagation", "private",
                         "/bin/sh", "-c", script, "pbtbench-sandbox"]


def _mount_script(run_dir: Path, runtime: Path, overlay: Path | None, drop_uid: bool) -> str:
    q = shlex.quote
    interpreter = host_interpreter()
    root = run_dir / "root"
    lines = ["set -e", "umask 022", 'SANDBOX_PATH="$PATH"', 'PATH="/usr/sbin:/sbin:$PATH"', f"R={q(str(root))}",
             'mount -t tmpfs -o mode=0755,size=8m,nosuid,nodev pbtbench-root "$R"', 'cd "$R"',
             f"mkdir -p usr proc dev tmp etc .old {RUN[1:]} {RUNTIME[1:]} {OVERLAY[1:]}"]
    lines += _system_links()
    lines.append(_bind("/usr", "usr"))
    if interpreter.prefix != "/usr" and not interpreter.prefix.startswith("/usr/"):
        lines += [f"mkdir -p {q('.' + interpreter.prefix)}", _bind(interpreter.prefix, "." + interpreter.prefix)]
    for hidden in interpreter.hidden:
        lines.append(f"mount -t tmpfs -o ro,size=4k,mode=0555 pbtbench-hidden {q('.' + hidden)}")
    lines.append(_bind(str(runtime), RUNTIME[1:]))
    if overlay is not None:
        lines.append(_bind(str(overlay), OVERLAY[1:]))
    lines.append(_bind(str(run_dir / "work"), RUN[1:], read_only=False))
    lines += [f"touch dev/{d} && mount --bind /dev/{d} dev/{d}" for d in DEVICES]
    lines += [f"if [ -e /etc/{f} ]; then touch etc/{f} && {_bind('/etc/' + f, 'etc/' + f)}; fi" for f in ETC_FILES]
    lines += ["mount -t proc -o nosuid,nodev,noexec proc proc",
              "mount -t tmpfs -o mode=1777,size=64m,nosuid,nodev pbtbench-tmp tmp",
              'mount -o remount,ro "$R"', "pivot_root . .old", "umount -l /.old", f"cd {RUN}/tests", "unset OLDPWD"]
    # --pdeathsig: `unshare --kill-child` arms SIGKILL for the namespace's first process, but the kernel
    # clears it when that process changes uid; re-armed here, the namespace dies with its launcher.
    drop = ["setpriv", "--pdeathsig", "KILL", "--no-new-privs", "--inh-caps=-all", "--ambient-caps=-all",
            "--bounding-set=-all"]
    if drop_uid:
        drop[1:1] = [f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
    lines += ['PATH="$SANDBOX_PATH"', "exec " + " ".join(drop) + ' -- "$@"']
    return "\n".join(lines)


def _bind(source: str, target: str, read_only: bool = True) -> str:
    options = "ro,nosuid,nodev" if read_only else "nosuid,nodev"
    return f"mount --bind -o {options} {shlex.quote(source)} {shlex.quote(target)}"


def _system_links() -> list[str]:
    """/bin, /lib, ... as on the host: links into /usr (merged /usr) or read-only binds."""
    lines = []
    for name in MERGED_USR:
        path = Path("/") / name
        if path.is_symlink():
            lines.append(f"ln -s {shlex.quote(os.readlink(path))} {name}")
        elif path.is_dir():
            lines += [f"mkdir -p {name}", _bind(str(path), name)]
    return lines
