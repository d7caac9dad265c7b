"""The seccomp filter every sandboxed process runs under: classic BPF that refuses the calls reaching past the sandbox (mounts, namespaces, kernel modules, keys, clocks)."""

from __future__ import annotations

import ctypes
import errno
import os
import struct
import sys

# Return actions (include/uapi/linux/seccomp.h); the low 16 bits of RET_ERRNO carry the errno.
RET_KILL_PROCESS = 0x80000000
RET_ERRNO = 0x00050000
RET_ALLOW = 0x7FFF0000

# Values of seccomp_data.arch (include/uapi/linux/audit.h).
AUDIT_ARCH_X86_64 = 0xC000003E
AUDIT_ARCH_AARCH64 = 0xC00000B7
# x86_64 call numbers with this bit set are the x32 ABI's: same arch value, other numbers.
X32_SYSCALL_BIT = 0x40000000

# Offsets in struct seccomp_data {int nr; u32 arch; u64 instruction_pointer; u64 args[6];};
# both architectures here are little-endian, so an argument's low 32 bits come first.
_NR = 0
_ARCH = 4
_ARG0_LOW = 16
_ARG1_LOW = 24

# Classic BPF opcodes (include/uapi/linux/bpf_common.h).
_LD_W_ABS = 0x00 | 0x00 | 0x20  # BPF_LD | BPF_W | BPF_ABS
_JEQ_K = 0x05 | 0x10 | 0x00  # BPF_JMP | BPF_JEQ | BPF_K
_JSET_K = 0x05 | 0x40 | 0x00  # BPF_JMP | BPF_JSET | BPF_K
_RET_K = 0x06 | 0x00  # BPF_RET | BPF_K

# The namespace flags clone() may not carry (include/uapi/linux/sched.h): the mask of Docker's
# default profile. CLONE_NEWTIME (0x80) is left out on purpose: in clone()'s flags that bit is
# part of CSIGNAL (the exit signal), and a time namespace can only come from unshare (refused)
# or clone3 (refused).
CLONE_NEWNS = 0x00020000
CLONE_NEWCGROUP = 0x02000000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
CLONE_NAMESPACES = (
    CLONE_NEWNS
    | CLONE_NEWCGROUP
    | CLONE_NEWUTS
    | CLONE_NEWIPC
    | CLONE_NEWUSER
    | CLONE_NEWPID
    | CLONE_NEWNET
)

# ioctls that push input into, or drive, a terminal the sandbox may share with the host
# (include/uapi/asm-generic/ioctls.h, the same on both architectures): CVE-2017-5226.
TIOCSTI = 0x5412
TIOCLINUX = 0x541C

# Refused with EPERM wherever the architecture has them. io_uring is refused as Docker's
# default profile does since 25.0: its rings run calls that seccomp never sees.
DENIED = (
    "mount", "umount2", "pivot_root", "move_mount", "open_tree", "open_tree_attr",
    "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr",
    "unshare", "setns",
    "bpf", "perf_event_open", "userfaultfd",
    "io_uring_setup", "io_uring_enter", "io_uring_register",
    "keyctl", "add_key", "request_key",
    "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module",
    "reboot", "swapon", "swapoff", "acct", "syslog", "vhangup",
    "settimeofday", "clock_settime", "clock_adjtime", "adjtimex",
    "open_by_handle_at", "name_to_handle_at",
    "quotactl", "quotactl_fd", "lookup_dcookie",
    "iopl", "ioperm",
    "uselib", "ustat", "sysfs", "_sysctl", "nfsservctl",
    "create_module", "get_kernel_syms", "query_module",
)  # fmt: skip

# arch/x86/entry/syscalls/syscall_64.tbl ("common" and "64" rows), checked against
# /usr/include/x86_64-linux-gnu/asm/unistd_64.h and libseccomp's table (test_seccomp.py).
X86_64 = {
    "seccomp": 317, "ioctl": 16, "clone": 56, "clone3": 435,
    "mount": 165, "umount2": 166, "pivot_root": 155, "move_mount": 429, "open_tree": 428,
    "open_tree_attr": 467, "fsopen": 430, "fsconfig": 431, "fsmount": 432, "fspick": 433,
    "mount_setattr": 442,
    "unshare": 272, "setns": 308,
    "bpf": 321, "perf_event_open": 298, "userfaultfd": 323,
    "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
    "keyctl": 250, "add_key": 248, "request_key": 249,
    "kexec_load": 246, "kexec_file_load": 320, "init_module": 175, "finit_module": 313,
    "delete_module": 176,
    "reboot": 169, "swapon": 167, "swapoff": 168, "acct": 163, "syslog": 103, "vhangup": 153,
    "settimeofday": 164, "clock_settime": 227, "clock_adjtime": 305, "adjtimex": 159,
    "open_by_handle_at": 304, "name_to_handle_at": 303,
    "quotactl": 179, "quotactl_fd": 443, "lookup_dcookie": 212,
    "iopl": 172, "ioperm": 173,
    "uselib": 134, "ustat": 136, "sysfs": 139, "_sysctl": 156, "nfsservctl": 180,
    "create_module": 174, "get_kernel_syms": 177, "query_module": 178,
}  # fmt: skip

# include/uapi/asm-generic/unistd.h, the table arm64 uses; it never had iopl, ioperm, uselib,
# ustat, sysfs, _sysctl, create_module, get_kernel_syms or query_module. Checked like X86_64.
AARCH64 = {
    "seccomp": 277, "ioctl": 29, "clone": 220, "clone3": 435,
    "mount": 40, "umount2": 39, "pivot_root": 41, "move_mount": 429, "open_tree": 428,
    "open_tree_attr": 467, "fsopen": 430, "fsconfig": 431, "fsmount": 432, "fspick": 433,
    "mount_setattr": 442,
    "unshare": 97, "setns": 268,
    "bpf": 280, "perf_event_open": 241, "userfaultfd": 282,
    "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
    "keyctl": 219, "add_key": 217, "request_key": 218,
    "kexec_load": 104, "kexec_file_load": 294, "init_module": 105, "finit_module": 273,
    "delete_module": 106,
    "reboot": 142, "swapon": 224, "swapoff": 225, "acct": 89, "syslog": 116, "vhangup": 58,
    "settimeofday": 170, "clock_settime": 112, "clock_adjtime": 266, "adjtimex": 171,
    "open_by_handle_at": 265, "name_to_handle_at": 264,
    "quotactl": 60, "quotactl_fd": 443, "lookup_dcookie": 18,
    "nfsservctl": 42,
}  # fmt: skip

# machine (os.uname) → (seccomp_data.arch, call numbers, whether the x32 ABI must be refused)
ARCHES = {
    "x86_64": (AUDIT_ARCH_X86_64, X86_64, True),
    "aarch64": (AUDIT_ARCH_AARCH64, AARCH64, False),
}

# A filter needs a 64-bit little-endian process: a 32-bit one has another arch value and would
# be killed by its first call.
SUPPORTED = os.uname().machine in ARCHES and sys.byteorder == "little" and struct.calcsize("P") == 8

PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2
SECCOMP_SET_MODE_FILTER = 1
SECCOMP_FILTER_FLAG_TSYNC = 1

# An instruction: (code, jt, jf, k), where a jump target is a label (str) or 0 (the next one).
_Insn = tuple[int, int | str, int | str, int]


def _ld(offset: int) -> _Insn:
    return (_LD_W_ABS, 0, 0, offset)


def _jeq(value: int, then: int | str, other: int | str = 0) -> _Insn:
    return (_JEQ_K, then, other, value)


def _jset(mask: int, then: int | str, other: int | str = 0) -> _Insn:
    return (_JSET_K, then, other, mask)


def _ret(action: int) -> _Insn:
    return (_RET_K, 0, 0, action)


def _assemble(items: list[_Insn | str]) -> bytes:
    """Pack instructions into struct sock_filter bytes; a str item labels the next instruction."""
    labels: dict[str, int] = {}
    insns: list[_Insn] = []
    for item in items:
        if isinstance(item, str):
            labels[item] = len(insns)
        else:
            insns.append(item)

    def offset(target: int | str, at: int) -> int:
        if isinstance(target, int):
            return target
        jump = labels[target] - at - 1
        if not 0 <= jump <= 255:  # jt and jf are one byte, forward only
            raise ValueError(f"jump to {target} from {at} is {jump} instructions")
        return jump

    return b"".join(
        struct.pack("=HBBI", code, offset(jt, i), offset(jf, i), k)
        for i, (code, jt, jf, k) in enumerate(insns)
    )


def program(machine: str | None = None) -> bytes:
    """The filter for `machine` (os.uname().machine when None): an array of struct sock_filter."""
    machine = machine or os.uname().machine
    if machine not in ARCHES:
        raise OSError(errno.ENOSYS, f"no seccomp filter for {machine}")
    arch, numbers, refuse_x32 = ARCHES[machine]
    items: list[_Insn | str] = [_ld(_ARCH), _jeq(arch, 0, "kill"), _ld(_NR)]
    if refuse_x32:
        items.append(_jset(X32_SYSCALL_BIT, "eperm"))
    items += [
        _jeq(numbers["clone"], "clone"),
        # ENOSYS, not EPERM: glibc then falls back to clone(), whose flags the filter can read
        # (clone3 passes them in memory, out of a filter's reach).
        _jeq(numbers["clone3"], "enosys"),
        _jeq(numbers["ioctl"], "ioctl"),
    ]
    items += [_jeq(numbers[name], "eperm") for name in DENIED if name in numbers]
    items += [
        _ret(RET_ALLOW),
        "clone",
        _ld(_ARG0_LOW),  # flags: args[0] on both architectures, only the low 32 bits are used
        _jset(CLONE_NAMESPACES, "eperm"),
        _ret(RET_ALLOW),
        "ioctl",
        _ld(_ARG1_LOW),  # the request is an unsigned int
        _jeq(TIOCSTI, "eperm"),
        _jeq(TIOCLINUX, "eperm"),
        _ret(RET_ALLOW),
        "eperm",
        _ret(RET_ERRNO | errno.EPERM),
        "enosys",
        _ret(RET_ERRNO | errno.ENOSYS),
        "kill",
        _ret(RET_KILL_PROCESS),
    ]
    return _assemble(items)


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def install() -> None:
    """Put the calling process (all its threads) and its future children under program().

    Sets no_new_privs first, which an unprivileged caller needs and bwrap sets for its own
    children anyway. Raises OSError when the filter cannot be installed.
    """
    if not SUPPORTED:
        raise OSError(errno.ENOSYS, f"no seccomp filter for {os.uname().machine}")
    code = program()
    buffer = ctypes.create_string_buffer(code, len(code))
    fprog = _SockFprog(len(code) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    one, zero = ctypes.c_ulong(1), ctypes.c_ulong(0)
    if libc.prctl(PR_SET_NO_NEW_PRIVS, one, zero, zero, zero) != 0:
        _raise("prctl(PR_SET_NO_NEW_PRIVS)")
    # seccomp(2) with TSYNC filters every thread of the process, where prctl filters only the
    # calling one; prctl stays the fallback for kernels before 3.17.
    done = libc.syscall(
        ctypes.c_long(ARCHES[os.uname().machine][1]["seccomp"]),
        ctypes.c_long(SECCOMP_SET_MODE_FILTER),
        ctypes.c_long(SECCOMP_FILTER_FLAG_TSYNC),
        ctypes.byref(fprog),
    )
    if done > 0:  # the id of a thread that could not be synchronised
        raise OSError(errno.EBUSY, f"seccomp: thread {done} could not take the filter")
    if done == 0:
        return
    if ctypes.get_errno() != errno.ENOSYS:
        _raise("seccomp(SECCOMP_SET_MODE_FILTER)")
    mode = ctypes.c_ulong(SECCOMP_MODE_FILTER)
    if libc.prctl(PR_SET_SECCOMP, mode, ctypes.byref(fprog), zero, zero) != 0:
        _raise("prctl(PR_SET_SECCOMP)")


def _raise(call: str) -> None:
    number = ctypes.get_errno()
    raise OSError(number, f"{call}: {os.strerror(number)}")
