"""Reading a study spec (YAML or JSON) into an :class:`~toolscore_agent.model.AgentSpec`.

A study spends money, so every mistake a file can hold must stop it before anything starts,
and the message must say where the mistake is and how to fix it. Reading goes in two steps:

1. **Shape**, by the JSON Schema shipped in the package (``schemas/agent-spec.schema.json``,
   compiled once per process with fastjsonschema). The first problem becomes an
   :class:`InputError` naming the file, the key path (``$.arms[1].model``) and what was
   expected; an unknown key gets a did-you-mean, or the section it belongs to.
2. **Meaning**, here, for what a schema cannot say: exactly one of ``server.command`` /
   ``url`` / ``config``; arms inherit the top level's provider, model, system,
   max_output_tokens, extra, pricing, base_url and api_key_env (an arm's ``extra`` is laid
   over the top level's, key by key; every other setting is replaced whole); unique ids; a
   provider that exists; regexes that compile; expected and forbidden calls through the
   kernel's own contract reader (so a task reads exactly as a gold file would); and a script
   on every task for every scripted arm.

``pricing`` is either one price for the arm's model(s) (``{input_per_million: 0.1,
output_per_million: 0.5}`` or ``[0.1, 0.5]``), or a mapping from model name to such a price
(``{claude-haiku-5-5: {...}, claude-sonnet-5-5: {...}}``). A by-model entry that names no
arm's model is an error: it is almost always a typo, and a typo here would silently fall
back to the price table, or to an unknown price.

``allow_tools`` may be written at the top level (as the spec page's example does) or under
``guard``; both mean the same list, so giving both is an error only when they differ.
A spec without ``arms`` has one arm, built from the top level, named after its model (or
``default`` when the model's name cannot be an id).
"""

from __future__ import annotations

import difflib
import functools
import json
import os
import re
import shlex
from collections.abc import Callable, Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from toolscore_agent.model import (
    AgentSpec,
    Arm,
    BudgetSpec,
    GuardSpec,
    Limits,
    ScriptStep,
    ServerSpec,
    Task,
    VerifySpec,
)
from toolscore_core import (
    Contract,
    InputError,
    Price,
    expected_calls,
    forbidden_rules,
    json_path,
    load_data_file,
    price_for,
    price_from_data,
)

#: Providers this harness knows without asking the registry (toolscore-providers ships them).
KNOWN_PROVIDERS = ("anthropic", "openai", "openai-chat", "scripted")
SCRIPTED = "scripted"
_INHERITED = ("provider", "model", "system", "max_output_tokens", "extra", "pricing", "base_url", "api_key_env")
_PRICE_KEYS = frozenset({"input_per_million", "output_per_million", "cached_input_per_million", "source"})
_PLACEHOLDER = re.compile(r"\{([^{}]*)\}")
_CREDENTIAL_KEYS = frozenset({"api_key", "apikey", "api-key", "x-api-key", "authorization", "password", "token"})
#: Where keys written at the wrong level belong (for the hint of an unknown top-level key).
_SECTIONS = {
    **dict.fromkeys(("command", "url", "config", "env", "header_env", "cwd", "protocol", "timeout"), "server"),
    **dict.fromkeys(("server_name", "server_version", "expect"), "verify"),
    **dict.fromkeys(("max_turns", "max_calls"), "limits"),
    **dict.fromkeys(("max_usd", "allow_unknown_price"), "budget"),
    **dict.fromkeys(("deny", "python"), "guard"),
    **dict.fromkeys(("prompt", "expected", "forbidden", "min_score", "require_completed", "script"),
                    "each task under tasks"),
    "id": "each arm under arms, or each task under tasks",
}


# --- the schema ---------------------------------------------------------------------------------


@functools.cache
def schema() -> dict[str, Any]:
    """The shipped JSON Schema of a study spec."""
    text = resources.files("toolscore_agent.schemas").joinpath("agent-spec.schema.json").read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


@functools.cache
def _validator() -> Callable[[Any], Any]:
    import fastjsonschema

    return fastjsonschema.compile(schema())


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    return {dict: "a mapping", list: "a list", str: "a string", int: "a whole number",
            float: "a number"}.get(type(value), f"a {type(value).__name__}")


def _did_you_mean(word: str, choices: Sequence[str]) -> str | None:
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f"Did you mean {close[0]!r}?" if close else None


def _walk(data: Any, raw: Sequence[str]) -> tuple[list[str | int], Any]:
    """fastjsonschema names list indexes as strings: find the real path and the value there."""
    parts: list[str | int] = []
    node = data
    for part in raw:
        if isinstance(node, list) and part.isdigit():
            parts.append(int(part))
            node = node[int(part)] if int(part) < len(node) else None
        else:
            parts.append(part)
            node = node.get(part) if isinstance(node, dict) else None
    return parts, node


def _schema_error(exc: Any, data: Any, file: str | None) -> InputError:
    """One friendly paragraph from a fastjsonschema error: the key path, what is wrong, the fix."""
    parts, value = _walk(data, [str(p) for p in (exc.path or [])[1:]])
    rule = exc.rule
    definition = exc.definition if isinstance(exc.definition, dict) else {}
    wanted = definition.get("description")
    hint = None
    if rule == "additionalProperties":
        known = sorted(definition.get("properties", {}))
        extra = next((str(k) for k in (value or {}) if k not in known), "?")
        where = json_path(parts)
        parts = [*parts, extra]
        message = f"unknown key {extra!r}"
        hint = _did_you_mean(extra, known)
        if hint is None and not parts[:-1] and extra in _SECTIONS:
            hint = f"{extra!r} belongs under {_SECTIONS[extra]}"
        level = "the top level" if where == "$" else where
        wanted = f"only the keys {', '.join(k for k in known if k != '$schema')} at {level}"
    elif rule == "required":
        missing = next((k for k in definition.get("required", []) if k not in (value or {})), "?")
        message = f"the key {missing!r} is missing"
        wanted = None
        hint = f"Add {missing}: to " + ("the top level" if not parts else json_path(parts))
    elif rule == "type":
        types = definition.get("type")
        names = types if isinstance(types, list) else [types]
        message = f"is {_kind(value)}"
        wanted = wanted or " or ".join(_TYPE_WORDS.get(str(t), str(t)) for t in names)
        if value is not None and "string" in names and isinstance(value, (int, float)):
            hint = "Quote the value to make it a string"
    elif rule == "enum" and parts == ["spec_version"]:
        message = f"spec_version {value!r} is not supported"
        wanted = "spec_version: 1 (the only version this Toolscore reads)"
    elif rule == "enum":
        choices = [str(c) for c in definition.get("enum", [])]
        message = f"is {value!r}"
        wanted = "one of " + ", ".join(choices)
        hint = _did_you_mean(str(value), choices) if isinstance(value, str) else None
    elif rule in ("minimum", "exclusiveMinimum", "maximum"):
        bound = definition.get(rule)
        word = {"minimum": "at least", "exclusiveMinimum": "more than", "maximum": "at most"}[rule]
        message = f"is {value!r}"
        number = "a whole number" if "integer" in str(definition.get("type")) else "a number"
        wanted = f"{number} {word} {bound}"
    elif rule == "minProperties":
        message = "is empty"
        wanted = "at least one of " + ", ".join(sorted(definition.get("properties", {})))
    elif rule in ("minItems", "minLength"):
        message = "is empty"
        wanted = wanted or "at least one entry"
    elif rule == "pattern":
        message = f"is {value!r}"
        wanted = wanted or f"text matching {definition.get('pattern')}"
    else:
        message = str(exc.message).split(" ", 1)[-1]
    return InputError(message, file=file, location=json_path(parts), expected=wanted, hint=hint)


_TYPE_WORDS = {"string": "a string", "integer": "a whole number", "number": "a number",
               "boolean": "true or false", "object": "a mapping", "array": "a list", "null": "null"}


def _check_keys(value: Any, parts: list[str | int], file: str | None) -> None:
    """YAML allows keys that are numbers or booleans; a spec's keys are all strings."""
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise InputError(f"the key {key!r} is {_kind(key)}", file=file, location=json_path(parts),
                                 expected="keys that are strings", hint="Quote the key")
            _check_keys(item, [*parts, key], file)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _check_keys(item, [*parts, index], file)


# --- reading --------------------------------------------------------------------------------------


def load_agent_spec(source: str | os.PathLike[str] | Mapping[str, Any], *, pm: Any = None) -> AgentSpec:
    """Read and check a study spec: a path to a YAML or JSON file, or the parsed mapping.

    Every problem is an :class:`InputError` (exit code 2) naming the file, the key path and
    the fix. ``pm`` is the plugin manager whose providers registry decides which provider
    names exist beyond the built-in ones (default: the process's own, consulted only when a
    spec names a provider this module does not know).
    """
    import fastjsonschema

    if isinstance(source, Mapping):
        data: Any = dict(source)
        file: str | None = None
    else:
        file = str(source)
        data = load_data_file(Path(source))
    if not isinstance(data, dict):
        raise InputError(f"is {_kind(data)}, not a study spec", file=file, location="$",
                         expected="a mapping with name, server, arms and tasks")
    _check_keys(data, [], file)
    try:
        _validator()(data)
    except fastjsonschema.JsonSchemaValueException as exc:
        raise _schema_error(exc, data, file) from None
    return _Reader(data, file, pm).spec()


class _Reader:
    """The meaning checks of one spec, with the file name every error needs."""

    def __init__(self, data: dict[str, Any], file: str | None, pm: Any) -> None:
        self.data = data
        self.file = file
        self.pm = pm

    def error(self, message: str, parts: Sequence[str | int], *, expected: str | None = None,
              hint: str | None = None) -> InputError:
        return InputError(message, file=self.file, location=json_path(parts), expected=expected, hint=hint)

    def finite(self, value: Any, parts: Sequence[str | int], unit: str) -> float | None:
        """A number the schema allowed, refused when NaN or infinite (a NaN cap stops nothing)."""
        number = _float(value)
        if number is not None and (number != number or number in (float("inf"), float("-inf"))):
            raise self.error(f"is {value!r}", parts, expected=f"a finite number of {unit}, or null")
        return number

    def spec(self) -> AgentSpec:
        data = self.data
        arms = self.arms()
        budget = data.get("budget") or {}
        limits = data.get("limits") or {}
        return AgentSpec(
            name=data["name"],
            server=self.server(),
            arms=arms,
            tasks=self.tasks(arms),
            spec_version=int(data.get("spec_version", 1)),
            repetitions=int(data.get("repetitions", 1)),
            seed=int(data.get("seed", 0)),
            verify=self.verify(),
            budget=BudgetSpec(max_usd=self.finite(budget.get("max_usd"), ["budget", "max_usd"], "US dollars"),
                              allow_unknown_price=bool(budget.get("allow_unknown_price", False))),
            limits=Limits(max_turns=_int(limits.get("max_turns")), max_calls=_int(limits.get("max_calls"))),
            guard=self.guard(),
            source=self.file,
        )

    # -- server and verify -------------------------------------------------------------------

    def server(self) -> ServerSpec:
        raw: dict[str, Any] = self.data["server"]
        given = [key for key in ("command", "url", "config") if key in raw]
        if len(given) != 1:
            message = "names no server" if not given else f"gives {' and '.join(given)}"
            raise self.error(message, ["server"], expected="exactly one of command, url or config (+ name)",
                             hint='e.g. command: "python -m toolscore_mcp.sample_server"')
        kind = given[0]
        allowed = {"command": {"env", "cwd", "warm_start"}, "url": {"header_env"}, "config": {"name"}}[kind]
        for key in ("env", "cwd", "header_env", "name", "warm_start"):
            if key in raw and key not in allowed:
                why = {"name": "it names a server in a config file",
                       "header_env": "headers are sent to a url server",
                       "env": "it is the environment of a started command",
                       "cwd": "it is where a started command runs",
                       "warm_start": "only a started command can be forked warm"}[key]
                fix = " (the config file's entry sets its own)" if kind == "config" else ""
                raise self.error(f"{key} cannot be used with server.{kind}: {why}{fix}", ["server", key])
        command: str | tuple[str, ...] | None = None
        if kind == "command":
            command = self.command(raw["command"])
        for name, value in (raw.get("env") or {}).items():
            for placeholder in _PLACEHOLDER.findall(value):
                if placeholder != "run_dir":
                    raise self.error(f"the placeholder {{{placeholder}}} is unknown", ["server", "env", name],
                                     expected="{run_dir} (a fresh temporary directory per run) or no placeholder",
                                     hint=_did_you_mean(placeholder, ["run_dir"]))
        if "url" in raw:
            self.no_userinfo(raw["url"], ["server", "url"])
        timeout = float(raw.get("timeout", 30.0))
        if timeout != timeout or timeout == float("inf"):  # the schema's "more than 0" lets NaN and inf by
            raise self.error(f"is {raw['timeout']!r}", ["server", "timeout"],
                             expected="a finite number of seconds more than 0")
        return ServerSpec(command=command, url=raw.get("url"), config=raw.get("config"), name=raw.get("name"),
                          env=dict(raw.get("env") or {}), header_env=dict(raw.get("header_env") or {}),
                          cwd=raw.get("cwd"), protocol=raw.get("protocol", "auto"),
                          timeout=timeout, warm_start=bool(raw.get("warm_start", True)))

    def command(self, value: str | list[str]) -> str | tuple[str, ...]:
        if isinstance(value, list):
            if not value[0].strip():
                raise self.error("starts with an empty program name", ["server", "command", 0])
            return tuple(value)
        try:
            argv = shlex.split(value)
        except ValueError as exc:
            raise self.error(f"cannot be split into arguments ({exc})", ["server", "command"],
                             hint="Close the quote, or write the command as a list of arguments") from None
        if not argv:
            raise self.error("is blank", ["server", "command"], expected="a command line")
        return value

    def no_userinfo(self, url: str, parts: list[str | int]) -> None:
        from urllib.parse import urlsplit

        if urlsplit(url).password is not None or "@" in urlsplit(url).netloc:
            raise self.error("holds a user name or password", parts,
                             hint="Never write a credential in a spec: send it with header_env (the NAME of "
                                  "an environment variable)")

    def verify(self) -> VerifySpec | None:
        raw = self.data.get("verify")
        if raw is None:
            return None
        for key in ("server_name", "server_version"):
            value = raw.get(key)
            if value is not None and len(value) >= 2 and value.startswith("/") and value.endswith("/"):
                self.regex(value[1:-1], ["verify", key])
        if "expect" in raw:
            if "command" not in raw:
                raise self.error("expect needs a command whose output it matches", ["verify", "expect"],
                                 hint='Add command: e.g. "npm view PACKAGE@VERSION version"')
            self.regex(raw["expect"], ["verify", "expect"])
        if "command" in raw:
            try:
                argv = shlex.split(raw["command"])
            except ValueError as exc:
                raise self.error(f"cannot be split into arguments ({exc})", ["verify", "command"]) from None
            if not argv:
                raise self.error("is blank", ["verify", "command"])
        return VerifySpec(server_name=raw.get("server_name"), server_version=raw.get("server_version"),
                          command=raw.get("command"), expect=raw.get("expect"))

    def regex(self, pattern: str, parts: list[str | int]) -> None:
        try:
            re.compile(pattern)
        except re.error as exc:
            raise self.error(f"is not a valid regular expression ({exc})", parts,
                             hint="In YAML double quotes write a backslash twice (\"^2\\\\.0$\"), or use "
                                  "single quotes") from None

    # -- arms ------------------------------------------------------------------------------------

    def arms(self) -> tuple[Arm, ...]:
        top = {key: self.data[key] for key in _INHERITED if key in self.data}
        raw_arms = self.data.get("arms")
        if raw_arms is None:
            model = top.get("model")
            fallback = model if isinstance(model, str) and re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}", model) \
                else "default"
            raw_arms, implicit = [{"id": fallback}], True
        else:
            implicit = False
        arms: list[Arm] = []
        seen: dict[str, int] = {}
        for index, raw in enumerate(raw_arms):
            parts: list[str | int] = [] if implicit else ["arms", index]
            if raw["id"] in seen:
                raise self.error(f"the arm id {raw['id']!r} is used twice (also at $.arms[{seen[raw['id']]}])",
                                 [*parts, "id"], hint="Give every arm its own id")
            seen[raw["id"]] = index
            arms.append(self.arm(raw, top, parts))
        self.check_pricing_entries(top, raw_arms, arms)
        return tuple(arms)

    def arm(self, raw: dict[str, Any], top: dict[str, Any], parts: list[str | int]) -> Arm:
        settings = {**top, **{k: v for k, v in raw.items() if k != "id"}}
        settings["extra"] = {**(top.get("extra") or {}), **(raw.get("extra") or {})}
        provider = settings.get("provider")
        if provider is None:
            raise self.error(f"arm {raw['id']!r} has no provider", parts,
                             expected="provider: at the top level or in the arm",
                             hint="Known providers: " + ", ".join(KNOWN_PROVIDERS))
        self.check_provider(provider, [*parts, "provider"] if "provider" in raw else ["provider"])
        model = settings.get("model")
        if model is None:
            if provider != SCRIPTED:
                raise self.error(f"arm {raw['id']!r} has no model", parts,
                                 expected="model: at the top level or in the arm")
            model = SCRIPTED
        for key in settings["extra"]:
            if key.lower() in _CREDENTIAL_KEYS:
                at = [*parts, "extra", key] if key in (raw.get("extra") or {}) else ["extra", key]
                raise self.error(f"extra holds a credential ({key})", at,
                                 hint="Never write a credential in a spec: set api_key_env to the NAME of the "
                                      "environment variable that holds it")
        if settings.get("base_url") is not None:
            self.no_userinfo(settings["base_url"], [*parts, "base_url"] if "base_url" in raw else ["base_url"])
        price = None
        if "pricing" in settings:
            where: list[str | int] = [*parts, "pricing"] if "pricing" in raw else ["pricing"]
            price = self.price(settings["pricing"], where, model)
        return Arm(id=raw["id"], provider=provider, model=model, system=settings.get("system"),
                   max_output_tokens=_int(settings.get("max_output_tokens")), extra=settings["extra"],
                   price=price, base_url=settings.get("base_url"), api_key_env=settings.get("api_key_env"))

    def check_provider(self, name: str, parts: list[str | int]) -> None:
        if name in KNOWN_PROVIDERS:
            return
        names = set(KNOWN_PROVIDERS)
        from toolscore_core import collect, get_plugin_manager

        registry = collect(self.pm if self.pm is not None else get_plugin_manager(), "providers")
        names.update(registry.names())
        if name not in names:
            raise self.error(f"the provider {name!r} is not installed", parts,
                             expected="one of " + ", ".join(sorted(names)),
                             hint=_did_you_mean(name, sorted(names)) or
                             "A provider from another distribution must be installed first")

    def price(self, raw: Any, parts: list[str | int], model: str) -> Price | None:
        """The spec's price for ``model``: one price, or the model's entry of a by-model mapping."""
        if not _by_model(raw):
            return price_from_data(raw, file=self.file, location=json_path(parts))
        table = {name: price_from_data(value, file=self.file, location=json_path([*parts, name]))
                 for name, value in raw.items()}
        found = price_for(model, table)
        return found if any(found is entry for entry in table.values()) else None

    def check_pricing_entries(self, top: dict[str, Any], raw_arms: list[dict[str, Any]], arms: list[Arm]) -> None:
        """Every by-model pricing entry must name the model of an arm that uses that mapping."""
        groups: list[tuple[Any, list[str | int], list[str]]] = []
        if _by_model(top.get("pricing")):
            users = [arm.model for raw, arm in zip(raw_arms, arms, strict=True) if "pricing" not in raw]
            groups.append((top["pricing"], ["pricing"], users))
        for index, (raw, arm) in enumerate(zip(raw_arms, arms, strict=True)):
            if _by_model(raw.get("pricing")):
                groups.append((raw["pricing"], ["arms", index, "pricing"], [arm.model]))
        for table, parts, models in groups:
            runs = {_canonical(m) for m in models}
            for name in table:
                if _canonical(name) not in runs:
                    raise self.error(f"prices the model {name!r}, which no arm using this pricing runs",
                                     [*parts, name], expected="a model of: " + ", ".join(sorted(set(models))),
                                     hint=_did_you_mean(name, models) or "Remove the entry or fix the model name")

    # -- guard -----------------------------------------------------------------------------------

    def guard(self) -> GuardSpec:
        raw = self.data.get("guard") or {}
        deny = forbidden_rules(raw.get("deny") or [], file=self.file, prefix=["guard", "deny"])
        top, inner = self.data.get("allow_tools"), raw.get("allow_tools")
        if top is not None and inner is not None and set(top) != set(inner):
            raise self.error("differs from the top-level allow_tools", ["guard", "allow_tools"],
                             expected="one list of patterns, written in one place (or the same in both)",
                             hint="Keep allow_tools either at the top level or under guard")
        allow = inner if inner is not None else top
        python = raw.get("python") or ()
        uses = raw.get("use") or {}
        if uses:
            self.check_guard_names(list(uses))
        return GuardSpec(deny=deny, allow_tools=tuple(allow) if allow is not None else None,
                         python=(python,) if isinstance(python, str) else tuple(python),
                         use=tuple((name, dict(settings or {})) for name, settings in uses.items()))

    def check_guard_names(self, names: list[str]) -> None:
        from toolscore_core import collect, get_plugin_manager

        registry = collect(self.pm if self.pm is not None else get_plugin_manager(), "guards")
        known = registry.names()
        for name in names:
            if name not in registry:
                raise self.error(f"no installed guard is called {name!r}", ["guard", "use", name],
                                 expected="one of " + (", ".join(known) or "none installed"),
                                 hint=_did_you_mean(name, known) or "Install the distribution that ships it")

    # -- tasks -----------------------------------------------------------------------------------

    def tasks(self, arms: tuple[Arm, ...]) -> tuple[Task, ...]:
        out: list[Task] = []
        seen: dict[str, int] = {}
        arm_ids = [arm.id for arm in arms]
        for index, raw in enumerate(self.data["tasks"]):
            parts: list[str | int] = ["tasks", index]
            if raw["id"] in seen:
                raise self.error(f"the task id {raw['id']!r} is used twice (also at $.tasks[{seen[raw['id']]}])",
                                 [*parts, "id"], hint="Give every task its own id")
            seen[raw["id"]] = index
            task = Task(id=raw["id"], prompt=raw["prompt"], contract=self.contract(raw, parts),
                        require_completed=bool(raw.get("require_completed", True)),
                        **self.scripts(raw.get("script"), [*parts, "script"], arm_ids))
            for arm in arms:
                if arm.provider == SCRIPTED and task.script_for(arm.id) is None:
                    raise self.error(f"task {task.id!r} has no script for the scripted arm {arm.id!r}",
                                     [*parts, "script"] if "script" in raw else parts,
                                     hint=f"Add script: [...] to the task (every scripted arm), or "
                                          f"script: {{{arm.id}: [...]}}")
            out.append(task)
        return tuple(out)

    def contract(self, raw: dict[str, Any], parts: list[str | int]) -> Contract:
        expected = expected_calls(raw.get("expected") or [], file=self.file, prefix=[*parts, "expected"])
        forbidden = forbidden_rules(raw.get("forbidden") or [], file=self.file, prefix=[*parts, "forbidden"])
        return Contract(expected=expected, forbidden=forbidden, weights=dict(raw.get("weights") or {}),
                        min_score=_float(raw.get("min_score")), mode=raw.get("mode"), source=self.file)

    def scripts(self, raw: Any, parts: list[str | int], arm_ids: list[str]) -> dict[str, Any]:
        if raw is None:
            return {}
        if isinstance(raw, list):
            return {"default_script": _steps(raw)}
        scripts: dict[str, tuple[ScriptStep, ...]] = {}
        for arm_id, steps in raw.items():
            if arm_id not in arm_ids:
                raise self.error(f"the script names the arm {arm_id!r}, which the study does not have",
                                 [*parts, arm_id], expected="one of the arm ids " + ", ".join(arm_ids),
                                 hint=_did_you_mean(arm_id, arm_ids))
            scripts[arm_id] = _steps(steps)
        return {"scripts": scripts}


def _steps(raw: list[dict[str, Any]]) -> tuple[ScriptStep, ...]:
    return tuple(ScriptStep(calls=tuple({"tool": c["tool"], "args": c.get("args", {})} for c in step.get("calls", ())),
                            text=step.get("text")) for step in raw)


def _by_model(raw: Any) -> bool:
    """A pricing mapping from model name to price (rather than one price)."""
    return isinstance(raw, dict) and bool(raw) and not (set(raw) & _PRICE_KEYS)


def _canonical(model: str) -> str:
    """How a by-model pricing entry is matched to a model: case and a ``vendor/`` prefix ignored
    (the rule the kernel's ``price_for`` applies to overrides)."""
    return model.strip().lower().rsplit("/", 1)[-1]


def _int(value: Any) -> int | None:
    return None if value is None else int(value)


def _float(value: Any) -> float | None:
    return None if value is None else float(value)


def spec_base_dir(spec: AgentSpec) -> Path | None:
    """The folder of the spec's file (relative paths and ``guard.python`` modules resolve there)."""
    return Path(spec.source).resolve().parent if spec.source else None


__all__ = ["KNOWN_PROVIDERS", "load_agent_spec", "schema", "spec_base_dir"]
