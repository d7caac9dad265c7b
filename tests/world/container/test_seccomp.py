from __future__ import annotations

import ctypes
import errno
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from assay.world.container import seccomp

pytestmark = pytest.mark.skipif(not seccomp.SUPPORTED, reason="no seccomp filter for this arch")

AUDIT_ARCH_I386 = 0x40000003
SIGCHLD = 17

# Loads the module by its path in a `python -I -S` process, as the sandbox's launcher does, and
# installs the filter before the test's own code runs.
PRELUDE = f"""
import ctypes, errno, importlib.util, json, os, sys
spec = importlib.util.spec_from_file_location("seccomp", {str(Path(seccomp.__file__))!r})
seccomp = importlib.util.module_from_spec(spec)
spec.loader.exec_module(seccomp)
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long

def outcome(result):
    return errno.errorcode[ctypes.get_errno()] if result == -1 else "ok"
"""


def filtered(code: str) -> dict[str, object]:
    """Run `code` in a fresh process after install(); it prints one JSON object, returned here."""
    script = PRELUDE + "seccomp.install()\n" + textwrap.dedent(code)
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-c", script], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


# --- The program as data: its size, its numbers, and what it decides (a small BPF interpreter) ---


def run_bpf(code: bytes, nr: int, arch: int, args: tuple[int, ...] = ()) -> int:
    data = struct.pack("<iIQ6Q", nr, arch, 0, *(list(args) + [0] * (6 - len(args))))
    insns = [struct.unpack("=HBBI", code[i : i + 8]) for i in range(0, len(code), 8)]
    pc, acc = 0, 0
    while True:
        op, jt, jf, k = insns[pc]
        if op == 0x20:  # BPF_LD | BPF_W | BPF_ABS
            acc = struct.unpack_from("<I", data, k)[0]
        elif op == 0x15:  # BPF_JMP | BPF_JEQ | BPF_K
            pc += jt if acc == k else jf
        elif op == 0x45:  # BPF_JMP | BPF_JSET | BPF_K
            pc += jt if acc & k else jf
        elif op == 0x06:  # BPF_RET | BPF_K
            return k
        else:
            raise AssertionError(f"unexpected opcode {op:#x}")
        pc += 1


# calls that stay allowed, with their numbers from the same tables as the module's
ALLOWED = {
    "x86_64": {"read": 0, "ptrace": 101, "kcmp": 312, "process_vm_readv": 310},
    "aarch64": {"read": 63, "ptrace": 117, "kcmp": 272, "process_vm_readv": 270},
}
EPERM = seccomp.RET_ERRNO | errno.EPERM
ENOSYS = seccomp.RET_ERRNO | errno.ENOSYS


@pytest.mark.parametrize("machine", sorted(seccomp.ARCHES))
def test_program_is_a_sock_filter_array_the_kernel_accepts(machine: str) -> None:
    code = seccomp.program(machine)
    assert len(code) % 8 == 0
    assert 0 < len(code) // 8 < 4096  # BPF_MAXINSNS


@pytest.mark.parametrize("machine", sorted(seccomp.ARCHES))
def test_program_decisions(machine: str) -> None:
    code = seccomp.program(machine)
    arch, numbers, _ = seccomp.ARCHES[machine]
    for name in seccomp.DENIED:
        if name in numbers:
            assert run_bpf(code, numbers[name], arch) == EPERM, name
    assert run_bpf(code, numbers["clone3"], arch) == ENOSYS
    assert run_bpf(code, 0, AUDIT_ARCH_I386) == seccomp.RET_KILL_PROCESS
    assert run_bpf(code, numbers["mount"], AUDIT_ARCH_I386) == seccomp.RET_KILL_PROCESS
    clone = numbers["clone"]
    for flag in (seccomp.CLONE_NEWUSER, seccomp.CLONE_NEWNS, seccomp.CLONE_NEWNET):
        assert run_bpf(code, clone, arch, (flag | SIGCHLD,)) == EPERM
    assert run_bpf(code, clone, arch, (SIGCHLD,)) == seccomp.RET_ALLOW
    threads = 0x3D0F00  # CLONE_VM|FS|FILES|SIGHAND|THREAD|SYSVSEM|SETTLS|PARENT/CHILD_SETTID
    assert run_bpf(code, clone, arch, (threads,)) == seccomp.RET_ALLOW
    # the kernel reads only clone's low 32 bits, so the high ones decide nothing
    assert run_bpf(code, clone, arch, ((1 << 40) | SIGCHLD,)) == seccomp.RET_ALLOW
    ioctl = numbers["ioctl"]
    assert run_bpf(code, ioctl, arch, (0, seccomp.TIOCSTI)) == EPERM
    assert run_bpf(code, ioctl, arch, (0, 0x5401)) == seccomp.RET_ALLOW  # TCGETS
    for name, nr in ALLOWED[machine].items():
        assert run_bpf(code, nr, arch) == seccomp.RET_ALLOW, name
    x32 = run_bpf(code, seccomp.X32_SYSCALL_BIT | 0, arch)
    assert x32 == (EPERM if machine == "x86_64" else seccomp.RET_ALLOW)


def test_every_number_belongs_to_a_rule() -> None:
    ruled = {*seccomp.DENIED, "clone", "clone3", "ioctl", "seccomp"}
    for numbers in (seccomp.X86_64, seccomp.AARCH64):
        assert set(numbers) <= ruled
        assert {"clone", "clone3", "ioctl", "seccomp"} <= set(numbers)
    for name in seccomp.DENIED:
        assert name in seccomp.X86_64 or name in seccomp.AARCH64, name


HEADERS = {
    "x86_64": Path("/usr/include/x86_64-linux-gnu/asm/unistd_64.h"),
    "aarch64": Path("/usr/include/asm-generic/unistd.h"),
}


@pytest.mark.parametrize("machine", sorted(HEADERS))
def test_numbers_match_the_installed_kernel_headers(machine: str) -> None:
    if not HEADERS[machine].exists():
        pytest.skip(f"no {HEADERS[machine]}")
    text = HEADERS[machine].read_text()
    header = {m[1]: int(m[2]) for m in re.finditer(r"#define __NR_(\w+)\s+(\d+)\b", text)}
    numbers = seccomp.ARCHES[machine][1]
    for name, nr in numbers.items():
        if name in header:  # headers older than the call (open_tree_attr, 6.15) lack it
            assert header[name] == nr, name
    known = [name for name in numbers if name in header]
    assert len(known) >= len(numbers) - 1


def test_numbers_match_libseccomp() -> None:
    try:
        lib = ctypes.CDLL("libseccomp.so.2")
    except OSError:
        pytest.skip("no libseccomp")
    resolve = lib.seccomp_syscall_resolve_name_arch
    resolve.argtypes = [ctypes.c_uint32, ctypes.c_char_p]
    resolve.restype = ctypes.c_int
    for arch, numbers, _ in seccomp.ARCHES.values():
        for name in (*seccomp.DENIED, "clone", "clone3", "ioctl", "seccomp"):
            found = resolve(arch, name.encode())
            if found >= 0:
                assert numbers.get(name) == found, name
            elif found == -1:  # __NR_SCMP_ERROR: a libseccomp older than the call
                continue
            else:  # a negative pseudo-number: the arch has no such call
                assert name not in numbers, name


def test_unsupported_machine_raises() -> None:
    with pytest.raises(OSError):
        seccomp.program("riscv64")


# --- The filter in a real process ---


def test_namespaces_and_mounts_are_refused() -> None:
    got = filtered(
        """
        numbers = seccomp.ARCHES[os.uname().machine][1]
        # arguments that fail anyway without the filter, so a broken filter harms nothing
        nowhere = b"/nonexistent-assay-mountpoint"
        ns = os.open("/proc/self/ns/net", os.O_RDONLY)
        print(json.dumps({
            "mount": outcome(libc.mount(b"none", nowhere, b"tmpfs", 0, None)),
            "umount2": outcome(libc.umount2(nowhere, 0)),
            "unshare_user": outcome(libc.unshare(0x10000000)),
            "unshare_ns": outcome(libc.unshare(0x00020000)),
            "setns": outcome(libc.setns(ns, 0)),
            "clone3": outcome(libc.syscall(numbers["clone3"], 0, 0)),
            "keyctl": outcome(libc.syscall(numbers["keyctl"], 0, 0, 0, 0, 0)),
            "bpf": outcome(libc.syscall(numbers["bpf"], 0, 0, 0)),
            "open_tree_attr": outcome(libc.syscall(numbers["open_tree_attr"], -1, 0, 0, 0, 0)),
            "io_uring_setup": outcome(libc.syscall(numbers["io_uring_setup"], 1, 0)),
            "mode": open("/proc/self/status").read().split("Seccomp:")[1].split()[0],
        }))
        """
    )
    assert got == {
        "mount": "EPERM",
        "umount2": "EPERM",
        "unshare_user": "EPERM",
        "unshare_ns": "EPERM",
        "setns": "EPERM",
        "clone3": "ENOSYS",
        "keyctl": "EPERM",
        "bpf": "EPERM",
        "open_tree_attr": "EPERM",
        "io_uring_setup": "EPERM",
        "mode": "2",
    }


def test_ordinary_work_still_runs() -> None:
    got = filtered(
        """
        import socket, subprocess, threading
        pid = os.fork()
        if pid == 0:
            os._exit(7)
        forked = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
        true = subprocess.run(["true"]).returncode
        echoed = subprocess.run(["sh", "-c", "echo hi | cat"], capture_output=True).stdout
        seen = []
        thread = threading.Thread(target=lambda: seen.append(os.getpid()))
        thread.start()
        thread.join()
        left, right = socket.socketpair()
        left.sendall(b"x")
        inet = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        inet.bind(("127.0.0.1", 0))
        inet.listen()
        read_r, read_w = os.pipe()
        tracee = os.fork()
        if tracee == 0:  # PTRACE_TRACEME, then exit before anything could stop it
            os.write(read_w, outcome(libc.ptrace(0, 0, 0, 0)).encode())
            os._exit(0)
        os.waitpid(tracee, 0)
        print(json.dumps({
            "fork": forked,
            "true": true,
            "pipe": echoed.decode(),
            "thread": seen == [os.getpid()],
            "socket": right.recv(1).decode(),
            "read": len(open("/etc/passwd").read()) > 0,
            "ptrace": os.read(read_r, 16).decode(),
        }))
        """
    )
    assert got == {
        "fork": 7,
        "true": 0,
        "pipe": "hi\n",
        "thread": True,
        "socket": "x",
        "read": True,
        "ptrace": "ok",
    }


def test_threads_started_before_install_are_filtered_too() -> None:
    script = PRELUDE + textwrap.dedent(
        """
        import threading
        go, done = threading.Event(), []
        def later():
            go.wait()
            done.append(outcome(libc.unshare(0x10000000)))
        thread = threading.Thread(target=later)
        thread.start()
        seccomp.install()
        go.set()
        thread.join()
        print(json.dumps({"unshare": done[0]}))
        """
    )
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-c", script], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"unshare": "EPERM"}


def test_terminal_injection_is_refused() -> None:
    got = filtered(
        """
        import fcntl
        primary, secondary = os.openpty()
        try:
            fcntl.ioctl(secondary, 0x5412, b"x")  # TIOCSTI
            injected = "ok"
        except OSError as error:
            injected = errno.errorcode[error.errno]
        fcntl.ioctl(secondary, 0x5401, bytes(64))  # TCGETS still works
        print(json.dumps({"tiocsti": injected}))
        """
    )
    assert got == {"tiocsti": "EPERM"}


def test_programs_started_under_the_filter_cannot_make_namespaces() -> None:
    if shutil.which("unshare") is None:
        pytest.skip("no unshare (util-linux)")
    got = filtered(
        """
        import subprocess
        done = subprocess.run(["unshare", "-U", "true"], capture_output=True, text=True)
        print(json.dumps({"rc": done.returncode, "stderr": done.stderr}))
        """
    )
    assert got["rc"] != 0
    assert "Operation not permitted" in str(got["stderr"])


# --- The same bytes handed to bwrap ---


BWRAP = ["bwrap", "--bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-pid"]


def bwrap(*command: str) -> subprocess.CompletedProcess[str]:
    read, write = os.pipe()
    os.write(write, seccomp.program())  # a few hundred bytes: within a pipe's buffer
    os.close(write)
    try:
        return subprocess.run(
            [*BWRAP, "--seccomp", str(read), "--", *command],
            pass_fds=(read,),
            capture_output=True,
            text=True,
            timeout=60,
        )
    finally:
        os.close(read)


@pytest.fixture
def bwrap_works() -> None:
    if shutil.which("bwrap") is None:
        pytest.skip("no bwrap")
    plain = subprocess.run([*BWRAP, "true"], capture_output=True, text=True)
    if plain.returncode != 0:
        pytest.skip(f"bwrap cannot start here: {plain.stderr.strip()}")


@pytest.mark.usefixtures("bwrap_works")
def test_bwrap_takes_the_program() -> None:
    started = bwrap("sh", "-c", "grep Seccomp: /proc/self/status")
    assert started.returncode == 0, started.stderr
    assert started.stdout.split() == ["Seccomp:", "2"]


@pytest.mark.usefixtures("bwrap_works")
def test_bwrap_child_cannot_unshare() -> None:
    if shutil.which("unshare") is None:
        pytest.skip("no unshare (util-linux)")
    refused = bwrap("unshare", "-U", "true")
    assert refused.returncode != 0
    assert "Operation not permitted" in refused.stderr
