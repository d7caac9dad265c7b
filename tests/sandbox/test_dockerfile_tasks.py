"""Tasks of our own whose Dockerfiles use what published tasks use, built and run for real: the base's
PATH, stages copied from, the uv image, .dockerignore, SHELL, heredoc files, ADD, ENTRYPOINT."""

from __future__ import annotations

from pathlib import Path

import pytest
from sandboxkit import make_task
from sandboxrun import exec_action, run_one, script

REWARD_IF = "if {checks}; then echo 1; else echo 0; fi > /logs/verifier/reward.txt\n"
# A file of Debian's archive, which these machines reach; plain HTTP, as apt fetches it, since a
# sandbox's root need not trust the certificate of a proxy the host goes through.
HELLO_URL = "http://deb.debian.org/debian/pool/main/h/hello/hello_2.10-3_amd64.deb"
HELLO_SHA256 = "2e6e2f1a0007dc43bc91c273fd36e91e40a4f1c2765a03eca68b70a42103878a"


def reward_if(*checks: str) -> str:
    """A test.sh that prints what it sees and rewards 1 when every check passes."""
    return "set -x\n" + REWARD_IF.format(checks=" && ".join(checks))


def verified(task: Path, **how) -> dict:  # type: ignore[no-untyped-def]
    result = run_one(task, **how)
    evidence = script(result)
    assert result.outcome == "verified", (result.error, evidence.get("test_stdout_tail"))
    return evidence


def test_a_path_put_before_the_images_own_reaches_build_agent_and_verifier(tmp_path: Path) -> None:
    dockerfile = (
        "FROM debian:bookworm\n"
        'ENV PATH="/opt/tool/bin:${PATH}"\n'
        "RUN mkdir -p /opt/tool/bin && printf '#!/bin/sh\\necho tool\\n' > /opt/tool/bin/mytool"
        " && chmod +x /opt/tool/bin/mytool\n"
        "RUN mytool > /built.txt\n"
    )
    test_sh = reward_if('[ "$(mytool)" = tool ]', "[ -f /app/by-agent ]", "grep -q tool /built.txt")
    task = make_task(tmp_path, "env-path", test_sh=test_sh, dockerfile=dockerfile)
    verified(task, actions=[exec_action("mkdir -p /app && mytool && ls / > /app/by-agent")])


def test_stages_are_built_and_copied_from_by_dockers_rules(tmp_path: Path) -> None:
    dockerfile = (
        "FROM debian:bookworm AS builder\n"
        "RUN mkdir -p /out/bin /out/lib && printf '#!/bin/sh\\necho built-tool\\n' > /out/bin/tool"
        " && chmod 755 /out/bin/tool && ln -s ../bin/tool /out/lib/tool-link"
        " && useradd -u 1234 maker && chown -h maker /out/lib/tool-link\n"
        "FROM debian:bookworm AS never-built\n"
        "RUN exit 1\n"
        "FROM debian:bookworm\n"
        "COPY --from=builder /out/ /usr/local/\n"
        "COPY --from=0 /out/bin/tool /opt/tool-copy\n"
        "COPY --from=builder --chown=nobody --chmod=700 /out/lib/tool-link /opt/owned/\n"
    )
    test_sh = reward_if(
        '[ "$(tool)" = built-tool ]',
        '[ "$(readlink /usr/local/lib/tool-link)" = ../bin/tool ]',
        '[ "$(stat -c %u /usr/local/lib/tool-link)" = 1234 ]',
        '[ "$(/opt/tool-copy)" = built-tool ]',
        '[ ! -L /opt/owned/tool-link ] && [ "$(stat -c %U:%a /opt/owned/tool-link)" = nobody:700 ]',
    )
    task = make_task(tmp_path, "multi-stage", test_sh=test_sh, dockerfile=dockerfile)
    evidence = verified(task, agent="noop")
    assert "multi_stage_ignored:never-built" in evidence["notes"]


def test_the_uv_image_copies_the_real_uv(tmp_path: Path) -> None:
    pytest.importorskip("uv", reason="uv comes with assay's sandbox extra")
    dockerfile = "FROM debian:bookworm\nCOPY --from=ghcr.io/astral-sh/uv:latest /uv /uvx /bin/\n"
    test_sh = reward_if(
        "/bin/uv --version | grep -q '^uv '",
        "/bin/uvx --version >/dev/null",
        "/bin/uv python find 3.13 >/dev/null",  # the tool layer's Python rule holds there too
    )
    task = make_task(tmp_path, "uv-image", test_sh=test_sh, dockerfile=dockerfile)
    evidence = verified(task, agent="noop")
    assert "copy_from_image_mapped:ghcr.io/astral-sh/uv:latest" in evidence["notes"]


def test_dockerignore_keeps_files_out_of_the_image(tmp_path: Path) -> None:
    files = {
        ".dockerignore": "secret.env\n**/*.log\ncache\n!cache/keep.txt\n",
        "secret.env": "TOKEN=1",
        "app.py": "print(1)",
        "sub/debug.log": "noise",
        "cache/big.bin": "x",
        "cache/keep.txt": "kept",
    }
    test_sh = reward_if(
        "[ -f /app/app.py ]",
        "[ ! -e /app/secret.env ]",
        "[ ! -e /app/sub/debug.log ]",
        "[ -d /app/sub ]",
        "[ ! -e /app/cache/big.bin ]",
        "[ $(cat /app/cache/keep.txt) = kept ]",
    )
    task = make_task(
        tmp_path,
        "dockerignore",
        test_sh=test_sh,
        dockerfile="FROM debian:bookworm\nCOPY . /app\n",
        environment_files=files,
    )
    verified(task, agent="noop")


def test_run_uses_sh_until_shell_names_another(tmp_path: Path) -> None:
    dockerfile = (
        "FROM debian:bookworm\n"
        'RUN test -z "${BASH_VERSION:-}" && echo "$0" > /default-shell.txt\n'
        'SHELL ["/bin/bash", "-o", "pipefail", "-c"]\n'
        'RUN [[ -n "$BASH_VERSION" ]] && ! (false | true) && echo bash > /bash-shell.txt\n'
    )
    test_sh = reward_if("grep -qx /bin/sh /default-shell.txt", "grep -qx bash /bash-shell.txt")
    task = make_task(tmp_path, "shell", test_sh=test_sh, dockerfile=dockerfile)
    verified(task, agent="noop")


def test_copy_heredocs_write_their_files(tmp_path: Path) -> None:
    dockerfile = (
        "FROM debian:bookworm\nARG WHO=world\n"
        "COPY <<EOF /etc/greeting\nhello $WHO\nEOF\n"
        'COPY --chmod=755 <<EOF1 <<"EOF2" /opt/conf/\n#!/bin/sh\necho one $WHO\nEOF1\ntwo $WHO\nEOF2\n'
    )
    test_sh = reward_if(
        '[ "$(cat /etc/greeting)" = "hello world" ]',
        '[ "$(/opt/conf/EOF1)" = "one world" ]',
        "[ \"$(cat /opt/conf/EOF2)\" = 'two $WHO' ]",
        '[ "$(stat -c %a /etc/greeting)" = 644 ]',
    )
    task = make_task(tmp_path, "heredoc", test_sh=test_sh, dockerfile=dockerfile)
    verified(task, agent="noop")


def test_add_unpacks_a_local_archive_and_downloads_a_url(tmp_path: Path) -> None:
    dockerfile = (
        "FROM debian:bookworm\n"
        "ADD data.tar /opt/data/\n"
        f"ADD --checksum=sha256:{HELLO_SHA256} {HELLO_URL} /opt/downloads/\n"
    )
    test_sh = reward_if(
        '[ "$(cat /opt/data/inner/f.txt)" = inside ]',
        "[ ! -e /opt/data/data.tar ]",
        f'[ "$(sha256sum /opt/downloads/hello_2.10-3_amd64.deb | cut -c1-64)" = {HELLO_SHA256} ]',
        '[ "$(stat -c %a /opt/downloads/hello_2.10-3_amd64.deb)" = 600 ]',
    )
    task = make_task(tmp_path, "add", test_sh=test_sh, dockerfile=dockerfile)
    _tar(task / "environment" / "data.tar", {"inner/f.txt": b"inside"})
    verified(task, agent="noop")
    wrong = dockerfile.replace(HELLO_SHA256, "0" * 64)
    broken = make_task(tmp_path, "add-wrong-sum", test_sh=test_sh, dockerfile=wrong)
    _tar(broken / "environment" / "data.tar", {"inner/f.txt": b"inside"})
    result = run_one(broken, agent="noop")
    assert result.outcome == "not_scored" and result.error is not None
    assert f"not sha256:{'0' * 64}" in result.error.message


def test_the_entrypoint_runs_in_the_agents_sandbox_and_the_verifiers(tmp_path: Path) -> None:
    entry = (
        "#!/bin/sh\nset -e\n"
        'echo "$(id -un) in $(pwd) with $GREETING" > /srv/site/info.txt\n'
        "python3 -m http.server 8123 --bind 127.0.0.1 >/dev/null 2>&1 &\n"
        'exec "$@"\n'
    )
    dockerfile = (
        "FROM debian:bookworm\n"
        "RUN useradd -m web && mkdir -p /srv/site /app && chown web /srv/site /app\n"
        "COPY entrypoint.sh /entrypoint.sh\n"
        "ENV GREETING=hi\nUSER web\nWORKDIR /srv/site\n"
        'ENTRYPOINT ["/entrypoint.sh"]\nCMD ["never-run"]\n'
    )
    fetch = (
        'for i in $(seq 50); do python3 -c "import urllib.request as u; '
        "print(u.urlopen('http://127.0.0.1:8123/info.txt').read().decode().strip())\" && break;"
        " sleep 0.1; done"
    )
    test_sh = reward_if(
        '[ "$(cat /app/seen.txt)" = "web in /srv/site with hi" ]', f'[ -n "$({fetch})" ]'
    )
    task = make_task(
        tmp_path,
        "entrypoint",
        test_sh=test_sh,
        solve_sh=f"{fetch} > /app/seen.txt\n",
        dockerfile=dockerfile,
        environment_files={"entrypoint.sh": entry},
    )
    evidence = verified(task)
    assert "entrypoint_started:/entrypoint.sh" in evidence["notes"]
    assert run_one(task, agent="noop").outcome == "not_achieved"


def _tar(path: Path, files: dict[str, bytes]) -> None:
    import io
    import tarfile

    with tarfile.open(path, "w") as archive:
        for name, data in files.items():
            member = tarfile.TarInfo(name)
            member.size = len(data)
            archive.addfile(member, io.BytesIO(data))
