"""Each Toolscore error ends a command with its own exit code (2 input, 3 budget), whether a
command body wraps itself in run_command or the error reaches the console-script entry point."""

from __future__ import annotations

import click
import pytest

from toolscore_core import InputError, RateLimited, hookimpl, run_command
from toolscore_core.cli import main
from toolscore_core.kernel.errors import BudgetStopped
from toolscore_core.kernel.plugins import get_plugin_manager


@click.command("spend")
@click.option("--what", type=click.Choice(["budget", "input", "provider", "nothing"]), default="nothing")
@run_command
def spend(what: str) -> None:
    """Pretend to run a study and stop the way --what says."""
    if what == "budget":
        raise BudgetStopped("the next call could cost $0.02; $0.01 of $2.00 is left",
                            spent_usd=1.99, limit_usd=2.0, next_call_usd=0.02)
    if what == "input":
        raise InputError("no tasks in the study", file="study.yaml", location="$.tasks")
    if what == "provider":
        raise RateLimited("slow down", provider="scripted", retry_after=1.0)
    click.echo("done")


@click.command("spend-unwrapped")
def spend_unwrapped() -> None:
    """No run_command: the error reaches main() as it is."""
    raise BudgetStopped("stopped before the next model call")


class Plugin:
    @hookimpl
    def toolscore_register_commands(self):
        return [spend, spend_unwrapped]


@pytest.mark.parametrize(("what", "code", "says"), [
    ("budget", 3, "the next call could cost $0.02; $0.01 of $2.00 is left"),
    ("input", 2, "study.yaml, at $.tasks: no tasks in the study."),
    ("provider", 2, "scripted: slow down"),
    ("nothing", 0, None),
])
def test_run_command_exits_with_the_errors_own_code(register_plugin, invoke, what, code, says):
    register_plugin(Plugin())
    result = invoke("spend", "--what", what)
    assert result.exit_code == code
    if says is None:
        assert result.stdout == "done\n" and result.stderr == ""
    else:
        assert result.stderr == f"toolscore: error: {says}\n"
        assert "Traceback" not in result.output


def test_toolscore_debug_reraises_for_a_traceback(register_plugin, invoke):
    register_plugin(Plugin())
    with pytest.raises(BudgetStopped):
        invoke("spend", "--what", "budget", env={"TOOLSCORE_DEBUG": "1"})


def test_main_exits_with_the_code_of_an_error_no_command_caught(monkeypatch, capsys):
    monkeypatch.setenv("TOOLSCORE_DISABLE_PLUGIN_AUTOLOAD", "1")  # built-ins and this test's plugin only
    get_plugin_manager().add_plugin(Plugin(), name="exit-code-test", kinds=["commands"])
    with pytest.raises(SystemExit) as info:
        main(["spend-unwrapped"])
    assert info.value.code == 3
    assert capsys.readouterr().err == "toolscore: error: stopped before the next model call\n"

    with pytest.raises(SystemExit) as info:
        main(["spend", "--what", "input"])
    assert info.value.code == 2
