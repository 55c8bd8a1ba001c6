"""``toolscore plugins``: what is installed, what each plugin registered, and what is broken.

Distributions, versions, groups and entry points come from package metadata, so the
listing works even when a plugin cannot be imported; the registered items come from
loading each group without strict mode, and a broken plugin shows its error and how to
disable it instead of its items.
"""

from __future__ import annotations

import json
import textwrap
from typing import Any

import click

from toolscore_core.cli._app import App
from toolscore_core.kernel.plugins import (
    BUILTINS,
    CORE_DISTRIBUTION,
    ENV_DISABLE,
    GROUPS,
    all_entry_points,
    distribution_of,
    group_name,
)


def plugin_inventory(app: App) -> list[dict[str, Any]]:
    """One record per distribution: name, version, and per group its entry point, items
    and error (if it failed). Sorted by distribution name."""
    from toolscore_core.kernel.registry import collect

    pm = app.pm
    dists: dict[str, dict[str, Any]] = {}
    core_version = __import__("toolscore_core").__version__
    core = dists.setdefault(CORE_DISTRIBUTION, {"name": CORE_DISTRIBUTION, "version": core_version,
                                                "builtin": True, "groups": {}})
    for kind, modules in BUILTINS.items():
        core["groups"][group_name(kind)] = {"entry_point": ", ".join(modules), "items": [], "error": None}
    for ep in all_entry_points():
        dist, version = distribution_of(ep)
        rec = dists.setdefault(dist, {"name": dist, "version": version, "builtin": False, "groups": {}})
        rec["groups"][ep.group] = {
            "entry_point": f"{ep.name} = {ep.value}",
            "items": [],
            "error": None,
            "disabled": bool({ep.name, dist} & pm.disabled),
        }
    # strict mode would stop at the first broken plugin: this command must show them all
    strict, pm.strict = pm.strict, False
    try:
        for kind in GROUPS:
            registry = collect(pm, kind)
            for entry in registry.entries():
                group = dists.get(entry.distribution, {}).get("groups", {}).get(group_name(kind))
                if group is not None:
                    group["items"].append(entry.name)
            for name, entries in registry.conflicts().items():
                for e in entries:
                    group = dists.get(e.distribution, {}).get("groups", {}).get(group_name(kind))
                    if group is not None:
                        group["items"].append(f"{name} (conflict)")
    finally:
        pm.strict = strict
    for failure in pm.failures.values():
        group = dists.get(failure.distribution, {}).get("groups", {}).get(group_name(failure.kind))
        if group is not None:
            group["error"] = f"{type(failure.error).__name__}: {failure.error}"
    for rec in dists.values():
        for group in rec["groups"].values():
            group["items"].sort()
    return [dists[name] for name in sorted(dists)]


@click.command("plugins")
@click.option("--json", "as_json", is_flag=True, help="Print the inventory as JSON.")
@click.option("--check", is_flag=True, help="Exit 1 if any plugin failed to load or conflicts.")
@click.pass_obj
def plugins(app: App, as_json: bool, check: bool) -> None:
    """List every distribution that plugs into Toolscore, its version, the entry-point
    groups it declares and what it registered in each.

    A plugin that fails to load is listed with its error and the way to disable it
    (TOOLSCORE_DISABLE_PLUGINS=NAME). With --check, exit code 1 when any is broken.
    """
    inventory = plugin_inventory(app)
    broken = [
        (d, g) for d in inventory for g, rec in d["groups"].items()
        if rec["error"] or any(i.endswith("(conflict)") for i in rec["items"])
    ]
    if as_json:
        click.echo(json.dumps({"distributions": inventory}, indent=2))
    else:
        for dist in inventory:
            tag = " (built-in)" if dist["builtin"] else ""
            click.echo(f"{dist['name']} {dist['version']}{tag}")
            for group, rec in sorted(dist["groups"].items()):
                if rec.get("disabled"):
                    state = f"disabled by {ENV_DISABLE}"
                elif rec["error"]:
                    state = f"FAILED: {rec['error']} (disable with {ENV_DISABLE}={dist['name']})"
                else:
                    state = ", ".join(rec["items"]) or "(nothing registered)"
                click.echo(textwrap.fill(state, width=100, initial_indent=f"  {group:<22} ",
                                         subsequent_indent=" " * 25, break_on_hyphens=False))
    if check and broken:
        raise SystemExit(1)
