"""The scripted customer: replies to messages, and changes the request when the task says so."""

from __future__ import annotations

from assay.formats.task import Customer


class CustomerScript:
    def __init__(self, spec: Customer):
        self.spec = spec
        self.request = spec.request
        self.contacts = 0
        self._waiting = list(spec.changes)

    def reply(self, text: str) -> str:
        """The first reply whose keywords appear in the message (any case), else the default."""
        self.contacts += 1
        lowered = text.lower()
        for reply in self.spec.replies:
            if any(keyword.lower() in lowered for keyword in reply.match):
                return reply.say
        return self.spec.default_reply

    def changes_at(self, moment: str) -> list[str]:
        """Messages of the changes due at `moment` (`first_write`, `turn:N`, `after:<tool>`), once each."""
        due = [change for change in self._waiting if change.at == moment]
        if not due:
            return []
        self._waiting = [change for change in self._waiting if change.at != moment]
        self.request = due[-1].say
        return [change.say for change in due]

    def expects(self, moment: str) -> bool:
        return any(change.at == moment for change in self._waiting)
