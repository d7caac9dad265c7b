"""One SFTP session over the started task run's file tree, read live on every operation: no copy
is taken at login, and nothing of the machine's own file system is ever reached."""

from __future__ import annotations

import base64
import posixpath
import stat
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from assay.api.sandbox_calls import call_on_started, started_task_run
from assay.api.ssh import asyncssh
from assay.served.auth import Caller
from assay.served.errors import ApiError
from assay.world.services.healthcare.files.folders import Entry
from assay.world.services.healthcare.globs import BadTreePath, tree_path

if TYPE_CHECKING:
    from assay.served.context import Context

WRITING = asyncssh.FXF_WRITE | asyncssh.FXF_CREAT | asyncssh.FXF_TRUNC | asyncssh.FXF_APPEND
REFUSALS = {
    "read_only": asyncssh.SFTPPermissionDenied,
    "not_found": asyncssh.SFTPNoSuchFile,
    "already_exists": asyncssh.SFTPFileAlreadyExists,
    "not_empty": asyncssh.SFTPDirNotEmpty,
}


@dataclass
class Handle:
    """An open file: its bytes as read at open, or as being written until close."""

    path: str
    data: bytearray
    writing: bool
    append: bool = False
    spoiled: bool = False  # a write went past max_file_bytes: closing keeps the old file


class RunTree(asyncssh.SFTPServer):
    """The session: paths are mapped onto the tree here (`/` is its root; `..` stops there)."""

    def __init__(self, context: Context, channel: asyncssh.SSHServerChannel):
        self.context = context
        self.run_id = str(channel.get_extra_info("username"))
        self.caller = Caller(run_id=self.run_id)
        super().__init__(channel)

    # --- the live tree -------------------------------------------------------------------------

    def _tree(self) -> Any:
        """The started task run's files service, as it is now."""
        try:
            task_run_id = started_task_run(self.context, self.caller, self.run_id)
            live = self.context.in_flight(self.context.task_run(self.caller, task_run_id))
        except ApiError as error:
            raise asyncssh.SFTPFailure(error.message) from None
        world = live.session.live
        for service in world.services.values():
            if service.kind == "files" and service.options.get("sftp", True):
                return service
        raise asyncssh.SFTPFailure(f"benchmark run {self.run_id} serves no file tree over SFTP")

    def _where(self, path: bytes) -> str:
        """The tree path a client's path names ("" for the root)."""
        where = posixpath.normpath(posixpath.join("/", path.decode("utf-8", "replace")))
        where = where.lstrip("/")
        if not where:
            return ""
        try:
            return tree_path(where)
        except BadTreePath as error:
            raise asyncssh.SFTPNoSuchFile(str(error)) from None

    def _entry(self, path: str) -> Entry:
        found = self._tree().entry(path)
        if found is None:
            raise asyncssh.SFTPNoSuchFile(f"no such file or folder: {path or '/'}")
        return found

    def _attrs(self, found: Entry, tree: Any = None) -> asyncssh.SFTPAttrs:
        tree = tree or self._tree()
        clock = tree.world.clock
        mtime = int((clock.start + clock.step * found.updated_turn).timestamp())
        if found.kind == "folder":
            mode = stat.S_IFDIR | (0o755 if tree.writable_folder(found.path) else 0o555)
        else:
            mode = stat.S_IFREG | (0o644 if tree.writable_path(found.path) else 0o444)
        size = found.size if found.kind == "file" else 0
        return asyncssh.SFTPAttrs(
            size=size, uid=0, gid=0, permissions=mode, atime=mtime, mtime=mtime, nlink=1
        )

    def _call(self, tool: str, args: dict[str, Any]) -> dict[str, Any]:
        """The matching call on the started task run; its refusal as an SFTP error."""
        try:
            event = call_on_started(self.context, self.caller, self.run_id, tool, args)
        except ApiError as error:
            raise asyncssh.SFTPFailure(error.message) from None
        if event.status != "OK":
            refusal = REFUSALS.get(event.code or "", asyncssh.SFTPFailure)
            raise refusal(event.message or f"{tool} ended {event.status}")
        return event.result if isinstance(event.result, dict) else {}

    def _must_write(self, path: str) -> Any:
        tree = self._tree()
        if not tree.writable_path(path):
            allowed = ", ".join(tree.writable) or "nowhere"
            raise asyncssh.SFTPPermissionDenied(f"{path} is read-only (writable: {allowed})")
        return tree

    def _folder_of(self, path: str) -> None:
        parent = posixpath.dirname(path)
        found = self._tree().entry(parent)
        if found is None or found.kind != "folder":
            raise asyncssh.SFTPNoSuchFile(f"no folder {parent or '/'} to hold {path}")

    # --- names ---------------------------------------------------------------------------------

    def realpath(self, path: bytes) -> bytes:
        return ("/" + self._where(path)).encode()

    def stat(self, path: bytes) -> asyncssh.SFTPAttrs:
        return self._attrs(self._entry(self._where(path)))

    lstat = stat

    def listdir(self, path: bytes) -> list[asyncssh.SFTPName]:
        where = self._where(path)
        folder = self._entry(where)
        if folder.kind != "folder":
            raise asyncssh.SFTPNoSuchFile(f"{where} is not a folder")
        here = self._attrs(folder)
        names = [asyncssh.SFTPName(b".", attrs=here), asyncssh.SFTPName(b"..", attrs=here)]
        tree = self._tree()
        for item in tree.listing(where):
            names.append(asyncssh.SFTPName(item.name.encode(), attrs=self._attrs(item, tree)))
        return names

    def readlink(self, path: bytes) -> bytes:
        raise asyncssh.SFTPNoSuchFile("the tree holds no links")

    def symlink(self, oldpath: bytes, newpath: bytes) -> None:
        raise asyncssh.SFTPPermissionDenied("symbolic links are refused")

    def link(self, oldpath: bytes, newpath: bytes) -> None:
        raise asyncssh.SFTPPermissionDenied("hard links are refused")

    def statvfs(self, path: bytes) -> asyncssh.SFTPVFSAttrs:
        self._entry(self._where(path))
        return asyncssh.SFTPVFSAttrs(bsize=4096, frsize=4096, namemax=255, fsid=0, flag=0)

    def fstatvfs(self, file_obj: object) -> asyncssh.SFTPVFSAttrs:
        return asyncssh.SFTPVFSAttrs(bsize=4096, frsize=4096, namemax=255, fsid=0, flag=0)

    # --- files ---------------------------------------------------------------------------------

    def open(self, path: bytes, pflags: int, attrs: asyncssh.SFTPAttrs) -> Handle:
        where = self._where(path)
        found = self._tree().entry(where)
        if found is not None and found.kind == "folder":
            raise asyncssh.SFTPFailure(f"{where or '/'} is a folder")
        if not pflags & WRITING:
            if found is None:
                raise asyncssh.SFTPNoSuchFile(f"no such file: {where}")
            return Handle(where, bytearray(self._tree().content(where)), writing=False)
        tree = self._must_write(where)
        if found is not None and pflags & asyncssh.FXF_EXCL and pflags & asyncssh.FXF_CREAT:
            raise asyncssh.SFTPFileAlreadyExists(f"{where} already exists")
        if found is None and not pflags & asyncssh.FXF_CREAT:
            raise asyncssh.SFTPNoSuchFile(f"no such file: {where}")
        self._folder_of(where)
        keep = found is not None and not pflags & asyncssh.FXF_TRUNC
        data = bytearray(tree.content(where)) if keep else bytearray()
        return Handle(where, data, writing=True, append=bool(pflags & asyncssh.FXF_APPEND))

    def read(self, file_obj: object, offset: int, size: int) -> bytes:
        handle = _handle(file_obj)
        return bytes(handle.data[offset : offset + size])

    def write(self, file_obj: object, offset: int, data: bytes) -> int:
        handle = _handle(file_obj)
        if not handle.writing:
            raise asyncssh.SFTPPermissionDenied(f"{handle.path} was opened for reading")
        limit = self._tree().max_bytes
        start = len(handle.data) if handle.append else offset
        if start + len(data) > limit:
            handle.spoiled = True
            raise asyncssh.SFTPFailure(f"a file may hold at most {limit} bytes")
        if start > len(handle.data):
            handle.data.extend(bytes(start - len(handle.data)))
        handle.data[start : start + len(data)] = data
        return len(data)

    def close(self, file_obj: object) -> None:
        handle = _handle(file_obj)
        if handle.writing and not handle.spoiled:
            content = base64.b64encode(bytes(handle.data)).decode("ascii")
            args = {"path": handle.path, "content": content, "encoding": "base64"}
            self._call("files_write", args)

    def fstat(self, file_obj: object) -> asyncssh.SFTPAttrs:
        handle = _handle(file_obj)
        found = self._tree().entry(handle.path) or Entry(handle.path, "file")
        attrs = self._attrs(found)
        attrs.size = len(handle.data)
        return attrs

    def fsetstat(self, file_obj: object, attrs: asyncssh.SFTPAttrs) -> None:
        handle = _handle(file_obj)
        if attrs.size is not None and handle.writing:
            del handle.data[attrs.size :]
            handle.data.extend(bytes(max(0, attrs.size - len(handle.data))))

    def fsync(self, file_obj: object) -> None:
        """Nothing to flush: the file is kept when it is closed."""

    def setstat(self, path: bytes, attrs: asyncssh.SFTPAttrs) -> None:
        """chmod, chown and touch where writing is allowed succeed and change nothing (the tree
        keeps no permissions, owners or times); a new size truncates the file."""
        where = self._where(path)
        found = self._entry(where)
        tree = self._tree()
        if found.kind == "folder":
            if not tree.writable_folder(where):
                raise asyncssh.SFTPPermissionDenied(f"{where or '/'} is read-only")
            return
        self._must_write(where)
        if attrs.size is not None:
            data = tree.content(where)[: attrs.size].ljust(attrs.size, b"\0")
            content = base64.b64encode(data).decode("ascii")
            self._call("files_write", {"path": where, "content": content, "encoding": "base64"})

    def remove(self, path: bytes) -> None:
        where = self._where(path)
        if self._entry(where).kind == "folder":
            raise asyncssh.SFTPFailure(f"{where} is a folder: remove it with rmdir")
        self._call("files_delete", {"path": where})

    # --- renames and folders -------------------------------------------------------------------

    def rename(self, oldpath: bytes, newpath: bytes) -> None:
        """SSH_FXP_RENAME (filexfer-02 §6.5): an existing target is refused."""
        target = self._where(newpath)
        if self._tree().entry(target) is not None:
            raise asyncssh.SFTPFileAlreadyExists(f"{target} already exists")
        self._move(self._where(oldpath), target)

    def posix_rename(self, oldpath: bytes, newpath: bytes) -> None:
        """posix-rename@openssh.com: rename(2), an existing file at the target is replaced."""
        self._move(self._where(oldpath), self._where(newpath))

    def _move(self, source: str, target: str) -> None:
        found = self._entry(source)
        if found.kind == "folder":
            raise asyncssh.SFTPOpUnsupported(
                "folders are not renamed: make the new one, move the files"
            )
        existing = self._tree().entry(target)
        if existing is not None and existing.kind == "folder":
            raise asyncssh.SFTPFailure(f"{target} is a folder")
        self._must_write(target)
        self._folder_of(target)
        if source != target:
            self._call("files_move", {"src": source, "dst": target})

    def mkdir(self, path: bytes, attrs: asyncssh.SFTPAttrs) -> None:
        self._call("files_mkdir", {"path": self._where(path)})

    def rmdir(self, path: bytes) -> None:
        self._call("files_rmdir", {"path": self._where(path)})


def _handle(file_obj: object) -> Handle:
    if not isinstance(file_obj, Handle):
        raise asyncssh.SFTPInvalidHandle("not a file handle of this session")
    return file_obj
