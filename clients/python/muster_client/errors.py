"""The one error type the muster client raises, with a stable code."""

from typing import Any, Dict, Optional


class MusterClientError(Exception):
    """Something the client could not do. ``code`` is stable; ``details`` names the file.

    Codes: ``INVALID_NAME``, ``PATH_ESCAPES_ROOT``, ``LOCK_TIMEOUT``, ``LOCK_LOST``,
    ``CORRUPT_FILE``, ``INVALID_MESSAGE``, ``NOT_FOUND``, ``IO_ERROR``.
    """

    def __init__(self, code: str, message: str, details: Optional[Dict[str, Any]] = None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = dict(details or {})

    def __str__(self) -> str:
        return f"[{self.code}] {self.message}"
