"""Build verification: is the server the one the study means to test?

A study of ``server-memory@2.0.1`` that silently runs against whatever ``npx`` resolved
that day measures the wrong thing, and pays for it. So before any model call the harness
checks what the spec's ``verify:`` asks:

- ``server_name`` / ``server_version`` against the server's ``serverInfo``: exact, or a
  regex written ``/.../``;
- ``command`` (run WITHOUT a shell: the line is split like a shell would, and no shell
  ever sees it), which must exit 0 within the timeout, and whose trimmed output must match
  ``expect``.

Regexes are *searched* (``re.search``), as grep does: ``/^2\\./`` accepts any 2.x and
``^2\\.0\\.1$`` demands the whole text. The command's output is text from another program:
it is trimmed, cut to :data:`OUTPUT_LIMIT` characters, redacted, and its control
characters are made visible (``\\x1b``) before a terminal or a row sees it.

The result, :class:`BuildCheck`, is a dict for the run row's ``server.build_check``
(``{"server_name": {"expected": ..., "actual": ..., "ok": ...}, ...}``) and a line per check
in the doctor's style (``server_name 'memory-server' matches; server_version '2.0.1'``). A
mismatch is a :class:`BuildMismatch` (exit code 2) naming what was expected and what the
server said.
"""

from __future__ import annotations

import re
import shlex
import subprocess
from collections.abc import Mapping
from typing import Any

import attrs

from toolscore_agent.model import VerifySpec
from toolscore_core import ToolscoreError, redact_command
from toolscore_core import visible as kernel_visible

#: Seconds the version command may take (``npm view`` on a cold cache takes a few).
COMMAND_TIMEOUT = 60.0
#: Characters of the command's output kept.
OUTPUT_LIMIT = 500


class BuildMismatch(ToolscoreError):
    """The server (or the version command) is not the build the spec names: the study
    refuses to start. Exit code 2, like any input the study cannot use."""

    exit_code = 2

    def __init__(self, message: str, *, check: BuildCheck | None = None) -> None:
        self.check = check
        super().__init__(message)


@attrs.frozen
class Check:
    """One comparison: what the spec expected, what was found, whether it matched."""

    name: str  # server_name | server_version | command
    expected: str
    actual: str | None
    ok: bool
    description: str


@attrs.frozen
class BuildCheck:
    """Every check the spec's ``verify`` asked for, and the protocol the server spoke."""

    checks: tuple[Check, ...] = ()
    protocol_version: str | None = None
    era: str | None = None

    @property
    def ok(self) -> bool:
        return all(check.ok for check in self.checks)

    def as_dict(self) -> dict[str, Any]:
        """What the run row's ``server.build_check`` holds."""
        return {c.name: {"expected": c.expected, "actual": c.actual, "ok": c.ok} for c in self.checks}

    def lines(self) -> list[str]:
        """One line per check, as the doctor prints them."""
        return [check.description for check in self.checks]

    def describe(self) -> str:
        """All checks on one line, ``; ``-separated (``server_name 'x' matches; ...``)."""
        return "; ".join(self.lines()) if self.checks else "nothing to verify"

    def mismatches(self) -> tuple[Check, ...]:
        return tuple(check for check in self.checks if not check.ok)


def visible(text: str, limit: int = OUTPUT_LIMIT) -> str:
    """``text`` fit for a terminal and a row: redacted, control characters written as
    escapes (a newline as ``\\n``), cut to ``limit`` characters (the kernel's
    :func:`toolscore_core.visible`, cut with ``...``)."""
    return kernel_visible(text, limit, marker="...")


def _is_regex(expected: str) -> bool:
    return len(expected) >= 2 and expected.startswith("/") and expected.endswith("/")


def value_matches(expected: str, actual: str | None) -> bool:
    """``expected`` exact, or searched as a regex when written ``/.../``."""
    if actual is None:
        return False
    if _is_regex(expected):
        return re.search(expected[1:-1], actual) is not None
    return actual == expected


def _info_check(name: str, expected: str, actual: Any) -> Check:
    value = actual if isinstance(actual, str) else None
    shown = visible(value, 200) if value is not None else None
    ok = value_matches(expected, value)
    if ok and _is_regex(expected):
        description = f"{name} {shown!r} matches {expected}"
    elif ok:  # the doctor's wording: "server_name 'memory-server' matches; server_version '2.0.1'"
        description = f"{name} {shown!r} matches" if name == "server_name" else f"{name} {shown!r}"
    else:
        said = f"{shown!r}" if shown is not None else "nothing (no serverInfo)"
        description = f"{name} expected {expected!r}, the server said {said}"
    return Check(name=name, expected=expected, actual=shown, ok=ok, description=description)


def run_version_command(verify: VerifySpec, *, timeout: float = COMMAND_TIMEOUT,
                        cwd: str | None = None) -> tuple[bool, str]:
    """Run ``verify.command`` without a shell; ``(ok, output)``.

    ``ok`` is True when the command exited 0 in time and (if ``expect`` is set) its trimmed
    output matches ``expect``. ``output`` is the trimmed standard output (with standard
    error when the command failed), made safe by :func:`visible`; a command that could not
    start or ran out of time says so in ``output``.
    """
    if not verify.command:
        return True, ""
    try:
        argv = shlex.split(verify.command)
    except ValueError as exc:
        return False, f"cannot split the command ({exc})"
    if not argv:
        return False, "the command is blank"
    try:
        done = subprocess.run(argv, capture_output=True, text=True, errors="replace", timeout=timeout,
                              stdin=subprocess.DEVNULL, cwd=cwd, check=False)
    except FileNotFoundError:
        return False, f"{argv[0]!r} was not found"
    except PermissionError:
        return False, f"{argv[0]!r} cannot be run (permission denied)"
    except subprocess.TimeoutExpired:
        return False, f"no answer within {timeout:g} s"
    except OSError as exc:
        return False, f"the command could not start ({exc.strerror or exc})"
    output = (done.stdout or "").strip()
    if done.returncode != 0:
        error = (done.stderr or "").strip()
        text = "; ".join(part for part in (output, error) if part)
        # stderr can echo the command line (``--token X``): cleaned like one
        return False, visible(f"exit code {done.returncode}" + (f": {redact_command(text)}" if text else ""))
    ok = verify.expect is None or re.search(verify.expect, output) is not None
    return ok, visible(output)


def check_build(verify: VerifySpec | None, server_info: Mapping[str, Any] | None,
                protocol_version: str | None = None, era: str | None = None, *,
                command_result: tuple[bool, str] | None = None, raise_on_mismatch: bool = True,
                cwd: str | None = None) -> BuildCheck:
    """Check the server's ``serverInfo`` (and the version command) against ``verify``.

    ``command_result`` is a ``(ok, output)`` from :func:`run_version_command` already run
    (the doctor runs it once and shows it); without it the command runs here. A mismatch
    raises :class:`BuildMismatch` unless ``raise_on_mismatch`` is False (the doctor reports
    every check instead).
    """
    checks: list[Check] = []
    info = dict(server_info or {})
    if verify is not None:
        if verify.server_name is not None:
            checks.append(_info_check("server_name", verify.server_name, info.get("name")))
        if verify.server_version is not None:
            checks.append(_info_check("server_version", verify.server_version, info.get("version")))
        if verify.command:
            ok, output = command_result if command_result is not None else run_version_command(verify, cwd=cwd)
            expected = verify.expect if verify.expect is not None else "exit code 0"
            shown = redact_command(verify.command)  # a version command can carry --token X
            if ok:
                description = f"{shown!r} printed {output!r}"
            else:
                description = f"{shown!r} gave {output!r}, expected {expected!r}"
            checks.append(Check(name="command", expected=expected, actual=output, ok=ok, description=description))
    result = BuildCheck(checks=tuple(checks), protocol_version=protocol_version, era=era)
    if raise_on_mismatch and not result.ok:
        bad = "; ".join(check.description for check in result.mismatches())
        raise BuildMismatch(f"the server is not the build the spec names: {bad}. The study did not start "
                            "(no model was called); fix verify: in the spec or the server", check=result)
    return result


def verify_server(verify: VerifySpec | None, client: Any, *, cwd: str | None = None) -> dict[str, Any] | None:
    """The study's preflight: check a started client's server against ``verify``.

    Returns the run row's ``build_check`` dict (None when the spec verifies nothing), or
    raises :class:`BuildMismatch`.
    """
    if verify is None or not (verify.server_name or verify.server_version or verify.command):
        return None
    result = check_build(verify, getattr(client, "server_info", None) or {},
                         getattr(client, "protocol_version", None), getattr(client, "era", None), cwd=cwd)
    return result.as_dict()


__all__ = ["COMMAND_TIMEOUT", "OUTPUT_LIMIT", "BuildCheck", "BuildMismatch", "Check", "check_build",
           "run_version_command", "value_matches", "verify_server", "visible"]
