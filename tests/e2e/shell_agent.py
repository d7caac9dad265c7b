"""A class agent for container-format tasks: it writes the requested note with `exec`, then reads
its own exec result before finishing."""

from __future__ import annotations


class ShellAgent:
    def __init__(self):
        self.sent = False

    def act(self, observation):
        if not self.sent:
            self.sent = True
            command = "echo 'override works' > notes.txt && pwd"
            return {"call": {"tool": "exec", "args": {"command": command, "timeout_s": 10}}}
        (result,) = [event for event in observation.events if event.type == "tool_result"]
        return {"finish": f"wrote notes.txt in {result.result['stdout'].strip()}"}
