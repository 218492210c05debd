"""Runtime faults (§12) raised while interpreting, and the control-flow signals of §7.

A `Fault` carries the §12 code; the node that raised it is attached on the way out
(`at`), so the record names the innermost construct and its POU.
"""

from __future__ import annotations

from typing import Any


class Fault(Exception):
    """A runtime error: execution stops, the scan is not completed."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.pos: Any = None
        self.pou: str | None = None

    def at(self, pos: Any, pou: str) -> Fault:
        """Attach the first (innermost) position and POU only."""
        if self.pos is None:
            self.pos = pos
            self.pou = pou
        return self


# Statement-list completion signals (returned, not raised: they are frequent).
EXIT, CONTINUE, RETURN = "EXIT", "CONTINUE", "RETURN"
