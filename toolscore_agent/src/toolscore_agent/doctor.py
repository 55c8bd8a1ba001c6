"""The doctor: every check a paid study can fail, made before the first paid call.

A study that dies on its third run because a key is missing, a package is absent or the
server is another build has already cost money and time; most of those failures are known
before anything runs. :func:`run_doctor` looks at all of them and reports each as one row
``(check, status, detail)`` instead of stopping at the first, so one pass shows everything
to fix. Statuses:

- ``pass``: checked and fine;
- ``warn``: the study can run, but read this (no ``max_usd``, a worst case above the cap, a
  model with no price that the spec allows);
- ``fail``: the study would not run, or not as the spec means (``toolscore doctor`` exits 1);
- ``unknown``: the doctor could not tell (a worst case with an unknown price);
- ``skip``: not asked for (no ``--contract``, no ``verify.command``).

Nothing here calls a model. The server is started once (as a run would start it) and the
version command is run; everything else is read from the spec, the environment and the
installed packages. API keys are looked at by NAME only: the detail says ``set`` or
``not set`` and never holds the value or any part of it. Every string that came from
outside (a server's name, a command's output, an error message) goes through
:func:`toolscore_core.visible`: redacted, control characters escaped, one line.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import math
import os
import platform
import re
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import attrs

from toolscore_agent.model import AgentSpec, ServerSpec, VerifySpec
from toolscore_core import InputError, ToolscoreError, price_for
from toolscore_core import visible as kernel_visible

STATUSES = ("pass", "warn", "fail", "unknown", "skip")

#: The SDK each API provider imports, and the extra of toolscore-agent that installs it.
PROVIDER_PACKAGES: dict[str, tuple[str, str]] = {
    "anthropic": ("anthropic", "anthropic"),
    "openai": ("openai", "openai"),
    "openai-chat": ("openai", "openai"),
}

#: The distributions whose versions the ``toolscore`` check lists (they are released together).
DISTRIBUTIONS = ("toolscore-core", "toolscore-agent", "toolscore-mcp", "toolscore-providers")

_DETAIL_LIMIT = 500
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def visible(text: Any, limit: int = _DETAIL_LIMIT) -> str:
    """Outside text fit for a terminal and for JSON: redacted, escaped, one line, bounded."""
    return kernel_visible(text, limit, marker="...")


@attrs.frozen
class DoctorCheck:
    """One row of the doctor's table. ``detail`` is already safe to print."""

    check: str
    status: str = attrs.field(validator=attrs.validators.in_(STATUSES))
    detail: str

    def as_dict(self) -> dict[str, str]:
        return {"check": self.check, "status": self.status, "detail": self.detail}


@attrs.frozen
class DoctorReport:
    """Every check, in the order the doctor made them; ``exit_code`` 1 when any failed."""

    checks: tuple[DoctorCheck, ...]

    @property
    def ok(self) -> bool:
        return not any(check.status == "fail" for check in self.checks)

    @property
    def exit_code(self) -> int:
        return 0 if self.ok else 1

    def by_name(self, name: str) -> DoctorCheck:
        """The check called ``name`` (``KeyError`` when the doctor did not make it)."""
        for check in self.checks:
            if check.check == name:
                return check
        raise KeyError(name)

    def as_list(self) -> list[dict[str, str]]:
        """What ``--json`` writes: ``[{"check": ..., "status": ..., "detail": ...}, ...]``."""
        return [check.as_dict() for check in self.checks]


def _row(check: str, status: str, detail: str) -> DoctorCheck:
    return DoctorCheck(visible(check, 80), status, visible(detail))


def _number(value: float) -> str:
    return repr(float(value))


def _money(value: float) -> str:
    return "unbounded" if math.isinf(value) else f"${value:.4f}"


# --- the checks ----------------------------------------------------------------------------------


def check_python() -> DoctorCheck:
    """The interpreter: its version and implementation (the harness needs 3.10+)."""
    return _row("python", "pass", f"{platform.python_implementation()} {platform.python_version()}")


def check_toolscore() -> DoctorCheck:
    """The versions of Toolscore's distributions; warn when they are not one release."""
    found: dict[str, str] = {}
    missing: list[str] = []
    for name in DISTRIBUTIONS:
        try:
            found[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            missing.append(name)
    detail = ", ".join(f"{name} {version}" for name, version in found.items())
    if missing:
        return _row("toolscore", "fail", f"{detail}; missing: {', '.join(missing)} "
                    f"(pip install {' '.join(missing)})")
    if len(set(found.values())) > 1:
        return _row("toolscore", "warn", f"{detail}: not one release (reinstall them together)")
    return _row("toolscore", "pass", detail)


def load_spec(spec: Any) -> tuple[AgentSpec | None, DoctorCheck]:
    """The spec (a path, a mapping or an :class:`AgentSpec`) and its check row."""
    if spec is None:
        return None, _row("spec", "skip", "no --spec given")
    if isinstance(spec, AgentSpec):
        loaded = spec
    else:
        from toolscore_agent.spec import load_agent_spec

        try:
            loaded = load_agent_spec(spec)
        except ToolscoreError as exc:  # the InputError names the file, the key path and the fix
            return None, _row("spec", "fail", str(exc))
    where = f"{loaded.source}: " if loaded.source else ""
    return loaded, _row("spec", "pass", f"{where}{loaded.name}: {len(loaded.tasks)} task(s) x "
                        f"{len(loaded.arms)} arm(s) x {loaded.repetitions} repetition(s)")


def check_contract(contract: str | os.PathLike[str] | None) -> DoctorCheck:
    """A gold (contract) file, read as ``toolscore eval`` reads it."""
    if contract is None:
        return _row("contract", "skip", "no --contract given")
    from toolscore_core.scoring.contracts import load_contract

    try:
        loaded = load_contract(Path(contract))
    except ToolscoreError as exc:
        return _row("contract", "fail", str(exc))
    return _row("contract", "pass", f"{contract}: {len(loaded.expected)} expected call(s), "
                f"{len(loaded.forbidden)} forbidden rule(s)")


def _providers_registry(pm: Any) -> Any:
    from toolscore_core import collect, get_plugin_manager

    return collect(pm if pm is not None else get_plugin_manager(), "providers")


def _provider_class(registry: Any, name: str) -> Any:
    try:
        return registry.get(name)
    except (InputError, KeyError):
        return None


def check_packages(spec: AgentSpec, registry: Any) -> list[DoctorCheck]:
    """Each provider the arms name is installed, and the SDK it imports is importable."""
    rows: list[DoctorCheck] = []
    seen: set[str] = set()
    modules: set[str] = set()
    for arm in spec.arms:
        if arm.provider in seen:
            continue
        seen.add(arm.provider)
        if _provider_class(registry, arm.provider) is None:
            rows.append(_row(f"provider {arm.provider}", "fail",
                             "not installed (no plugin registers it): pip install toolscore-providers"))
            continue
        package = PROVIDER_PACKAGES.get(arm.provider)
        if package is None or package[0] in modules:
            continue
        module, extra = package
        modules.add(module)
        if importlib.util.find_spec(module) is None:
            rows.append(_row(f"package {module}", "fail", f'missing: pip install "toolscore-agent[{extra}]"'))
            continue
        try:
            version = importlib.metadata.version(module)
        except importlib.metadata.PackageNotFoundError:
            version = "(version unknown)"
        rows.append(_row(f"package {module}", "pass", f"{module} {version}"))
    return rows


def spec_key_names(spec: AgentSpec, registry: Any) -> list[str]:
    """The environment variables the study reads credentials from: each arm's
    ``api_key_env`` (or its provider's default) and the server's ``header_env`` names."""
    names: list[str] = []
    for arm in spec.arms:
        name = arm.api_key_env
        if name is None:
            provider = _provider_class(registry, arm.provider)
            name = getattr(provider, "default_api_key_env", None)
        if name:
            names.append(name)
    names.extend(spec.server.header_env.values())
    return list(dict.fromkeys(names))


def check_key(name: str, environ: Mapping[str, str]) -> DoctorCheck:
    """Whether the variable ``name`` is set: never its value, nor any part of it."""
    if not _ENV_NAME.match(name):
        # Maybe a value passed where a name belongs: never echo it.
        return DoctorCheck("key", "fail", "not a variable name: give the NAME of the variable "
                           "(--key ANTHROPIC_API_KEY), never its value")
    value = environ.get(name)
    if value is None:
        return _row(f"key {name}", "fail", "not set")
    if not value.strip():
        return _row(f"key {name}", "fail", "set but empty")
    return _row(f"key {name}", "pass", "set")


def check_prices(spec: AgentSpec, allow_unknown_price: bool) -> tuple[list[DoctorCheck], dict[str, Any]]:
    """A price for every arm (the spec's pricing, else the price table), and the prices."""
    allowed = allow_unknown_price or spec.budget.allow_unknown_price
    rows: list[DoctorCheck] = []
    prices: dict[str, Any] = {}
    for arm in spec.arms:
        price = arm.price or price_for(arm.model, provider=arm.provider)
        prices[arm.id] = price
        if price is not None:
            rows.append(_row(f"price {arm.id}", "pass", f"{arm.model}: {price.describe()}"))
        elif allowed:
            rows.append(_row(f"price {arm.id}", "warn", f"{arm.model}: no known price; allowed, so its cost "
                             "is reported as null and max_usd cannot hold for it"))
        else:
            rows.append(_row(f"price {arm.id}", "fail", f"{arm.model}: no known price; add pricing: "
                             f"{{{arm.model}: {{input_per_million: N, output_per_million: N}}}} to the spec, "
                             "or allow it with budget.allow_unknown_price: true"))
    return rows, prices


def check_budget(spec: AgentSpec, prices: Mapping[str, Any]) -> DoctorCheck:
    """The study's worst case (as ``toolscore agent run --dry-run`` computes it) against max_usd."""
    from toolscore_agent.study import plan_cells, run_worst_case_usd

    worst: float | None = 0.0
    for cell in plan_cells(spec):
        one = run_worst_case_usd(spec, cell.arm, cell.task, prices.get(cell.arm.id))
        if one is None:
            worst = None
            break
        assert worst is not None
        worst += one
    cap = spec.budget.max_usd
    runs = f"{spec.run_count} run(s)"
    cap_text = f"max_usd {_number(cap)}" if cap is not None else "no max_usd"
    if worst is None:
        return _row("budget", "unknown", f"{runs}; worst case unknown (a model has no price, or no "
                    f"max_output_tokens) ({cap_text})")
    detail = f"{runs}; worst case {_money(worst)} ({cap_text})"
    if math.isinf(worst):
        return _row("budget", "warn", f"{detail}: set limits.max_turns to bound each run")
    if cap is None:
        if worst == 0:
            return _row("budget", "pass", detail)
        return _row("budget", "warn", f"{detail}: nothing caps the spend; set budget.max_usd")
    if worst > cap:
        return _row("budget", "warn", f"{detail}: the budget may stop the study before every run "
                    "(exit code 3; the same command resumes)")
    return _row("budget", "pass", detail)


def check_version_command(verify: VerifySpec | None, cwd: str | None) -> tuple[DoctorCheck, tuple[bool, str] | None]:
    """Run the spec's ``verify.command`` (no shell, with a timeout) and show what it printed."""
    if verify is None or not verify.command:
        return _row("version command", "skip", "the spec's verify: has no command"), None
    from toolscore_agent.verify import check_build, run_version_command

    result = run_version_command(verify, cwd=cwd)
    build = check_build(VerifySpec(command=verify.command, expect=verify.expect), {},
                        command_result=result, raise_on_mismatch=False)
    return _row("version command", "pass" if result[0] else "fail", build.describe()), result


def _open(server: ServerSpec | str, run_dir: str, base_dir: Path | None, timeout: float) -> Any:
    if isinstance(server, ServerSpec):
        from toolscore_agent.study import _client

        return _client(server, run_dir, base_dir)
    from toolscore_agent.study import server_argv
    from toolscore_mcp.client import is_url, open_client

    target: Any = server.strip() if is_url(server.strip()) else server_argv(server)
    return open_client(target, timeout=timeout)


def check_server(server: ServerSpec | str | None, verify: VerifySpec | None, base_dir: Path | None, *,
                 timeout: float = 30.0) -> list[DoctorCheck]:
    """Start the server as a run would, list its tools, then check the build against verify."""
    if server is None:
        return [_row("server", "skip", "no --spec or --server given")]
    wants_build = verify is not None and (verify.server_name is not None or verify.server_version is not None)
    with tempfile.TemporaryDirectory(prefix="toolscore-doctor-") as run_dir:
        try:
            client = _open(server, run_dir, base_dir, timeout)
            with client:
                tools = client.list_tools()
                info = dict(getattr(client, "server_info", None) or {})
                protocol = getattr(client, "protocol_version", None)
                era = getattr(client, "era", None)
        except (ToolscoreError, OSError) as exc:
            rows = [_row("server", "fail", f"did not start: {exc}")]
            if wants_build:
                rows.append(_row("build", "skip", "the server did not start"))
            return rows
    name = info.get("name") if isinstance(info.get("name"), str) else "(no name)"
    version = info.get("version") if isinstance(info.get("version"), str) else "(no version)"
    detail = f"{name} {version} started; {len(tools)} tool(s); MCP {protocol or 'unknown'}"
    if era:
        detail += f" ({era})"
    rows = [_row("server", "warn" if not tools else "pass",
                 detail + ("; a model would have nothing to call" if not tools else ""))]
    if wants_build:
        from toolscore_agent.verify import check_build

        assert verify is not None
        build = check_build(VerifySpec(server_name=verify.server_name, server_version=verify.server_version),
                            info, protocol, era, raise_on_mismatch=False)
        rows.append(_row("build", "pass" if build.ok else "fail", build.describe()))
    else:
        rows.append(_row("build", "skip", "the spec's verify: names no server_name or server_version"))
    return rows


# --- all of them ---------------------------------------------------------------------------------


def run_doctor(spec: Any = None, *, contract: str | os.PathLike[str] | None = None, server: str | None = None,
               keys: Iterable[str] = (), allow_unknown_price: bool = False,
               environ: Mapping[str, str] | None = None, pm: Any = None) -> DoctorReport:
    """Check everything a study needs before its first paid call; nothing calls a model.

    ``spec``: a study spec (path, mapping or :class:`AgentSpec`); ``contract``: a gold file;
    ``server``: a command line or an ``http(s)://`` URL to start instead of the spec's server;
    ``keys``: more environment variable NAMES to require; ``environ``: where keys are looked
    up (default ``os.environ``). Returns every check; ``report.exit_code`` is 1 when any failed.
    """
    env = os.environ if environ is None else environ
    rows: list[DoctorCheck] = [check_python(), check_toolscore()]
    loaded, spec_row = load_spec(spec)
    rows.append(spec_row)
    rows.append(check_contract(contract))
    key_names: list[str] = []
    base_dir: Path | None = None
    verify: VerifySpec | None = None
    if loaded is not None:
        from toolscore_agent.spec import spec_base_dir

        base_dir = spec_base_dir(loaded)
        verify = loaded.verify
        registry = _providers_registry(pm)
        rows.extend(check_packages(loaded, registry))
        key_names = spec_key_names(loaded, registry)
    key_names = list(dict.fromkeys([*key_names, *keys]))
    rows.extend(check_key(name, env) for name in key_names)
    if loaded is not None:
        price_rows, prices = check_prices(loaded, allow_unknown_price)
        rows.extend(price_rows)
        rows.append(check_budget(loaded, prices))
        version_row, _ = check_version_command(verify, str(base_dir) if base_dir is not None else None)
        rows.append(version_row)
    target: ServerSpec | str | None = server if server is not None else (loaded.server if loaded else None)
    timeout = loaded.server.timeout if loaded is not None else 30.0
    server_rows = check_server(target, verify, base_dir, timeout=timeout)
    if loaded is None:  # a bare --server has no verify: its build row says nothing
        server_rows = [row for row in server_rows if row.check != "build"]
    rows.extend(server_rows)
    return DoctorReport(tuple(rows))


__all__ = ["STATUSES", "DoctorCheck", "DoctorReport", "run_doctor"]
