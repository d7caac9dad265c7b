"""The image's ENTRYPOINT started in a task run's sandbox, as a container of the image starts it.

The format's own runner starts every container with the command `sh -c "sleep infinity"`, which
replaces the image's CMD but not its ENTRYPOINT: the entrypoint runs with that command as its
arguments (a typical entrypoint script starts a service, then `exec "$@"`). Here it is started in
the background of each new sandbox, as the image's USER, in its WORKDIR, with the task run's
environment; assay waits until it has handed over to the command (it is then ready) or exited,
and what it started has settled (a server it started is listening); an entrypoint that serves in
the foreground never hands over, and counts as started once the sandbox has been quiet a while.
ENTRYPOINT_WAIT_S is the most assay waits.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping

from assay.world.container.box import Sandbox, SandboxError
from assay.world.container.dockersteps import BuildPlan
from assay.world.container.layout import BUSYBOX

CONTAINER_COMMAND = ("sh", "-c", "sleep infinity")  # what the format's runner starts
ENTRYPOINT_WAIT_S = 5.0
LOGS = "/run/assay/entrypoint"  # on the sandbox's own /run: not in the layer the digest reads
POLL_S = 0.02
SETTLED_POLLS = 3  # polls in a row with no process of the sandbox on a CPU, once it handed over
QUIET_POLLS = 10  # the same for an entrypoint that keeps serving and never hands over
# Run by bash as the image's user: "$@" is the entrypoint and the container's command. What the
# entrypoint started may still be starting up when it hands over (or exits): the sandbox counts as
# settled when none of its processes is running, SETTLED_POLLS polls in a row.
START = f"""log={LOGS}/output.txt
[ -w {LOGS} ] || log=/dev/null
"$@" </dev/null >"$log" 2>&1 3<&- &
pid=$!
said=running
quiet=0
for ((i = 0; i < {int(ENTRYPOINT_WAIT_S / POLL_S)}; i++)); do
  if [ $said = running ]; then
    if ! kill -0 "$pid" 2>/dev/null; then
      wait "$pid"
      said="exited $?"
    elif mapfile -d '' -t argv < /proc/$pid/cmdline 2>/dev/null; then
      case "${{argv[*]}}" in "sh -c sleep infinity" | "sleep infinity") said=ready ;; esac
    fi
  fi
  busy=no
  for stat in /proc/[0-9]*/stat; do
    [ "$stat" = /proc/$$/stat ] && continue
    read -r line < "$stat" 2>/dev/null || continue
    state=${{line##*) }}
    [ "${{state%% *}}" = R ] && busy=yes && break
  done
  if [ $busy = yes ]; then quiet=0; else quiet=$((quiet + 1)); fi
  if [ $said != running ] && [ $quiet -ge {SETTLED_POLLS} ]; then break; fi
  if [ $quiet -ge {QUIET_POLLS} ]; then break; fi
  {BUSYBOX} usleep {int(POLL_S * 1_000_000)}
done
echo "$said"
"""


def start_entrypoint(box: Sandbox, plan: BuildPlan | None, env: Mapping[str, str]) -> list[str]:
    """Start the plan's ENTRYPOINT in `box`, if it has one; the notes that record it."""
    if plan is None or plan.entrypoint is None:
        return []
    argv = [*plan.entrypoint, *CONTAINER_COMMAND]
    notes = [f"entrypoint_started:{plan.entrypoint[0]}"]
    try:
        box.exec(f"mkdir -p {LOGS} && chmod 1777 {LOGS}", timeout_s=30)
        result = box.exec(
            f"set -- {shlex.join(argv)}\n{START}",
            timeout_s=ENTRYPOINT_WAIT_S + 30,
            user=plan.user,
            env=env,
            cwd=plan.workdir or "/",
        )
    except SandboxError as error:
        return [*notes, f"entrypoint_failed:{error}"]
    said = result.stdout.decode(errors="replace").strip()
    if result.exit_code != 0:
        return [*notes, f"entrypoint_failed:exit {result.exit_code}"]
    if said.startswith("exited"):
        notes.append(f"entrypoint_exited:{said.split()[-1]}")
    return notes
