"""The shared file tree over real SFTP (asyncssh, `assay serve --sftp-port`), on 127.0.0.1.

Username = benchmark run id, password = its bearer token. Each session gets its own folder,
filled from the started task run's `sandbox_files`, and is chrooted there. Closing a written
file, removing and renaming are `files_write` / `files_delete` / `files_move` calls on the started
task run, so each is a recorded action and the database row stays the truth; a refused call
undoes the change on disk and answers with its reason. Symlinks, hard links and writes outside
the service's `writable` globs are refused; SCP is off."""

from __future__ import annotations

import base64
import os
import re
import shutil
import socket
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

import asyncssh

from assay.api.auth import Caller
from assay.api.errors import ApiError
from assay.api.sandbox_calls import call_on_started, started_task_run
from assay.errors import UsageError

if TYPE_CHECKING:
    from assay.api.context import Context

HOST = "127.0.0.1"
WRITING = asyncssh.FXF_WRITE | asyncssh.FXF_CREAT | asyncssh.FXF_TRUNC | asyncssh.FXF_APPEND
REFUSALS = {"read_only": asyncssh.SFTPPermissionDenied, "not_found": asyncssh.SFTPNoSuchFile}


class SftpGateway:
    def __init__(self, context: Context, port: int, host_key: Path):
        self.context = context
        self.port = port
        _require_free(port)
        self.host_key = host_key
        self.server: Any = None

    async def start(self) -> str:
        """Listen; the URL agents are given."""
        if not self.host_key.exists():  # one key per store: clients may pin it
            self.host_key.parent.mkdir(parents=True, exist_ok=True)
            key = asyncssh.generate_private_key("ssh-ed25519")
            key.write_private_key(str(self.host_key))
            self.host_key.chmod(0o600)
        self.server = await asyncssh.create_server(
            lambda: _Login(self.context),
            HOST,
            self.port,
            server_host_keys=[str(self.host_key)],
            sftp_factory=lambda channel: RunTree(self.context, channel),
            allow_scp=False,
        )
        self.port = self.server.sockets[0].getsockname()[1]
        return f"sftp://{HOST}:{self.port}"

    async def close(self) -> None:
        if self.server is not None:
            self.server.close()
            await self.server.wait_closed()


def _require_free(port: int) -> None:
    """UsageError naming --sftp-port when the port cannot be listened on: found before the server
    starts, the listener's own failure would come from inside the app's start-up, as a traceback."""
    if port == 0:
        return
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as asyncio's listener does
        try:
            probe.bind((HOST, port))
        except OSError as error:
            raise UsageError(f"--sftp-port: {HOST}:{port}: {error.strerror}") from None


class _Login(asyncssh.SSHServer):
    def __init__(self, context: Context):
        self.context = context

    def begin_auth(self, username: str) -> bool:
        return True

    def password_auth_supported(self) -> bool:
        return True

    def validate_password(self, username: str, password: str) -> bool:
        try:
            caller = self.context.auth.caller(f"Bearer {password}")
        except ApiError:
            return False
        return caller.run_id == username


class RunTree(asyncssh.SFTPServer):
    """One SFTP session over the started task run's file tree."""

    def __init__(self, context: Context, channel: asyncssh.SSHServerChannel):
        self.context = context
        self.run_id = str(channel.get_extra_info("username"))
        self.caller = Caller(run_id=self.run_id)
        self.root = Path(tempfile.mkdtemp(prefix="assay-sftp-"))
        self.tree, self.written, self.spoiled = self._fill(), {}, set()
        super().__init__(channel, chroot=str(self.root).encode())

    def _fill(self) -> Any:
        """The files service of the started task run (None when none is started), its live files
        written under this session's folder."""
        try:
            task_run_id = started_task_run(self.context, self.caller, self.run_id)
            live = self.context.in_flight(self.context.task_run(self.caller, task_run_id))
        except ApiError:
            return None
        world = live.session.live
        trees = [
            service
            for service in world.services.values()
            if service.kind == "files" and service.options.get("sftp", True)
        ]
        rows = world.db.rows("SELECT path, content FROM sandbox_files WHERE deleted = 0")
        for row in rows:
            target = self.root / row["path"]
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(bytes(row["content"]))
        tree = trees[0] if trees else None
        for pattern in tree.writable if tree is not None else ():  # the drop folders, made ready
            folder = re.split(r"[*?\[]", pattern, maxsplit=1)[0].rsplit("/", 1)[0]
            if folder:
                (self.root / folder).mkdir(parents=True, exist_ok=True)
        return tree

    def _tree_path(self, path: bytes) -> str:
        local = Path(os.fsdecode(self.map_path(path)))
        return local.relative_to(self.root).as_posix()

    def _must_write(self, path: str) -> None:
        if self.tree is None:
            raise asyncssh.SFTPFailure(f"benchmark run {self.run_id} has no started task run")
        if not self.tree.writable_path(path):
            allowed = ", ".join(self.tree.writable) or "nowhere"
            raise asyncssh.SFTPPermissionDenied(f"{path} is read-only (writable: {allowed})")

    def _call(self, tool: str, args: dict[str, Any]) -> None:
        """The matching call on the started task run; its refusal as an SFTP error."""
        try:
            event = call_on_started(self.context, self.caller, self.run_id, tool, args)
        except ApiError as error:
            raise asyncssh.SFTPFailure(error.message) from None
        if event.status != "OK":
            refusal = REFUSALS.get(event.code or "", asyncssh.SFTPFailure)
            raise refusal(event.message or f"{tool} ended {event.status}")

    def open(self, path: bytes, pflags: int, attrs: asyncssh.SFTPAttrs) -> object:
        if pflags & WRITING:
            where = self._tree_path(path)
            self._must_write(where)
            handle = super().open(path, pflags, attrs)
            self.written[id(handle)] = where
            return handle
        return super().open(path, pflags, attrs)

    def write(self, file_obj: object, offset: int, data: bytes) -> int:
        limit = self.tree.max_bytes if self.tree is not None else 0
        if offset + len(data) > limit:  # the handle is spoiled: closing it keeps the old file
            self.spoiled.add(id(file_obj))
            raise asyncssh.SFTPFailure(f"a file may hold at most {limit} bytes")
        return super().write(file_obj, offset, data)  # type: ignore[return-value]

    def close(self, file_obj: object) -> None:
        super().close(file_obj)
        where = self.written.pop(id(file_obj), None)
        if where is None:
            return
        if id(file_obj) in self.spoiled:
            self.spoiled.discard(id(file_obj))
            self._restore(where)
            return
        data = (self.root / where).read_bytes()
        try:
            content = base64.b64encode(data).decode("ascii")
            self._call("files_write", {"path": where, "content": content, "encoding": "base64"})
        except asyncssh.SFTPError:
            self._restore(where)
            raise

    def remove(self, path: bytes) -> None:
        self._call("files_delete", {"path": self._tree_path(path)})
        super().remove(path)

    def rename(self, oldpath: bytes, newpath: bytes) -> None:
        destination = self._tree_path(newpath)
        self._must_write(destination)
        (self.root / destination).parent.mkdir(parents=True, exist_ok=True)
        self._call("files_move", {"src": self._tree_path(oldpath), "dst": destination})
        super().rename(oldpath, newpath)

    posix_rename = rename

    def mkdir(self, path: bytes, attrs: asyncssh.SFTPAttrs) -> None:
        self._must_write(self._tree_path(path) + "/x")  # a folder something may be written in
        super().mkdir(path, attrs)

    def setstat(self, path: bytes, attrs: asyncssh.SFTPAttrs) -> None:
        self._must_write(self._tree_path(path))
        super().setstat(path, attrs)

    def symlink(self, oldpath: bytes, newpath: bytes) -> None:
        raise asyncssh.SFTPPermissionDenied("symbolic links are refused")

    def link(self, oldpath: bytes, newpath: bytes) -> None:
        raise asyncssh.SFTPPermissionDenied("hard links are refused")

    def exit(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)

    def _restore(self, where: str) -> None:
        """The file on disk as the database holds it (gone when it holds none)."""
        local = self.root / where
        row = None
        if self.tree is not None:
            row = self.tree.world.db.row(
                "SELECT content FROM sandbox_files WHERE path = ? AND deleted = 0", where
            )
        if row is None:
            local.unlink(missing_ok=True)
        else:
            local.write_bytes(bytes(row["content"]))
