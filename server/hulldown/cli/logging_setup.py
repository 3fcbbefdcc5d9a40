"""The server's logs: ``--log-format text`` (one readable line per event) or ``json`` (one JSON
object per line), every line scrubbed of tokens (docs/operations.md).

Every logger - hulldown's, uvicorn's, the libraries' - writes through one handler on the root
logger whose formatter scrubs the finished line: a ``token=`` or ``spectator_token=`` query value
and an ``Authorization: Bearer`` value become ``[redacted]``, wherever in the line they are (the
request line uvicorn logs for a websocket, an exception message, an access log entry).

The JSON format writes the record's structured fields as keys: ``match_id``, ``seq``, ``side``,
``action``, ``code``, ``duration_ms`` (the action log, ``hulldown.actions``) and ``method``,
``path``, ``status``, ``client`` (the access log, ``hulldown.access``).
"""

from __future__ import annotations

import json
import logging
import re
import sys
from datetime import UTC, datetime
from typing import Any

from ..web.settings import LogFormat

TRACE = 5  # uvicorn's extra level below debug (``--log-level trace``)
LEVELS = {
    "critical": logging.CRITICAL,
    "error": logging.ERROR,
    "warning": logging.WARNING,
    "info": logging.INFO,
    "debug": logging.DEBUG,
    "trace": TRACE,
}
LOG_LEVELS = tuple(LEVELS)  # the ``--log-level`` choices (uvicorn's names)
REDACTED = "[redacted]"

_QUERY_TOKEN = re.compile(r"(?i)((?:^|[?&;\s\"'])(?:spectator_)?token=)[^&\s\"';\\]*")
_BEARER = re.compile(r"(?i)(bearer\s+)[^\s\"',;\\]+")
_ENCODED_TOKEN = re.compile(r"(?i)((?:^|%26|%3F)(?:spectator_)?token%3D)[^&\s\"';%\\]*")

# Record attributes written as JSON keys when present (set with ``extra=`` by the callers).
FIELDS = (
    "match_id",
    "seq",
    "side",
    "action",
    "action_id",
    "code",
    "rule",
    "role",
    "duration_ms",
    "method",
    "path",
    "status",
    "client",
)

ACCESS_LOGGER = "hulldown.access"
# The access log's fields its text line adds to its message (``GET /path 200``).
ACCESS_TEXT_FIELDS = ("client", "duration_ms")


def scrub(text: str) -> str:
    """``text`` with every token value (query string or bearer header) replaced by [redacted]."""
    text = _QUERY_TOKEN.sub(lambda m: m.group(1) + REDACTED, text)
    text = _ENCODED_TOKEN.sub(lambda m: m.group(1) + REDACTED, text)
    return _BEARER.sub(lambda m: m.group(1) + REDACTED, text)


class ScrubbingTextFormatter(logging.Formatter):
    """``<time> <LEVEL> <logger>: <message> key=value...`` with tokens scrubbed."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s: %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        line = super().format(record)
        # The access line's message is its method, path and status already: the rest follows.
        fields = ACCESS_TEXT_FIELDS if record.name == ACCESS_LOGGER else FIELDS
        extras = " ".join(f"{name}={getattr(record, name)}" for name in fields if hasattr(record, name))
        if extras:
            line = f"{line} {extras}"
        return scrub(line)


class JsonFormatter(logging.Formatter):
    """One JSON object per line: ``ts``, ``level``, ``logger``, ``event``, the structured fields
    and ``exception`` (the traceback text) when there is one; tokens scrubbed."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "event": scrub(record.getMessage()),
        }
        for name in FIELDS:
            if hasattr(record, name):
                value = getattr(record, name)
                entry[name] = scrub(value) if isinstance(value, str) else value
        if record.exc_info:
            entry["exception"] = scrub(self.formatException(record.exc_info))
        elif record.exc_text:
            entry["exception"] = scrub(record.exc_text)
        # Values are scrubbed before encoding, so the line stays valid JSON.
        return json.dumps(entry, default=str, ensure_ascii=False)


def formatter(log_format: LogFormat) -> logging.Formatter:
    return JsonFormatter() if log_format == "json" else ScrubbingTextFormatter()


def configure_logging(level: str, log_format: LogFormat) -> None:
    """One scrubbing handler on stderr for every logger; uvicorn's loggers propagate to it.
    ``level`` is one of :data:`LOG_LEVELS`."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(formatter(log_format))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(LEVELS[level])
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access", "websockets"):
        logger = logging.getLogger(name)
        for old in list(logger.handlers):
            logger.removeHandler(old)
        logger.propagate = True
