"""The shared file tree over real SFTP (asyncssh, `assay serve --sftp-port`), on 127.0.0.1.

Username = benchmark run id, password = its bearer token. A session is a view of the started
task run's live tree: every operation reads `sandbox_files` as it is now (so a file written over
HTTP or by a tool is seen at once), and every change is the matching `files_*` call on the
started task run (closing a written file `files_write`, `rm` `files_delete`, `rename`
`files_move`, `mkdir` `files_mkdir`, `rmdir` `files_rmdir`), so it is a recorded action and the
database row stays the truth. Renames follow OpenSSH's PROTOCOL file: SSH_FXP_RENAME refuses an
existing target (draft-ietf-secsh-filexfer-02), `posix-rename@openssh.com` replaces it as
rename(2) does. Symlinks, hard links and writes outside the `writable` globs are refused; `chmod`
where writing is allowed succeeds and changes nothing (the tree keeps no permissions); SCP is off."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay.api.sftp_view import RunTree
from assay.api.ssh import asyncssh
from assay.errors import UsageError
from assay.served.errors import ApiError

if TYPE_CHECKING:
    from assay.served.context import Context

HOST = "127.0.0.1"


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
