"""lazy_class: a registry item that stands for a class and imports it only when it is used.

Why it matters: every plugin's hook runs when a registry is built, so an item that imported
its module at registration would make every command pay for every plugin's modules.
"""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from toolscore_core.kernel.registry import Registry, instantiate, lazy_class

MODULE = "lazy_class_probe_module"


@pytest.fixture
def probe(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A module on sys.path whose class records how it was made; not imported yet."""
    (tmp_path / f"{MODULE}.py").write_text(textwrap.dedent(
        """
        class Real:
            name = "evaluation-probe"
            subject = "evaluation"
            extension = ".probe"
            made = []

            def __init__(self, colour="plain"):
                self.colour = colour
                Real.made.append(colour)
        """
    ))
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop(MODULE, None)
    yield f"{MODULE}:Real"
    sys.modules.pop(MODULE, None)


def test_registering_and_listing_import_nothing(probe: str) -> None:
    stand_in = lazy_class(probe, name="evaluation-probe", subject="evaluation")
    registry = Registry("exporters")
    registry.add(stand_in, plugin="p", distribution="d")
    assert registry.names() == ["evaluation-probe"]
    assert stand_in.subject == "evaluation"
    assert MODULE not in sys.modules


def test_other_attributes_and_objects_come_from_the_real_class(probe: str) -> None:
    stand_in = lazy_class(probe, name="evaluation-probe")
    assert stand_in.extension == ".probe"  # not carried: read from the real class
    real = sys.modules[MODULE].Real
    made = instantiate(stand_in, colour="red", unknown="dropped")  # the real signature filters settings
    assert type(made) is real and made.colour == "red"
    assert type(stand_in()) is real and real.made == ["red", "plain"]  # __init__ ran once per object


def test_dunder_probes_do_not_import(probe: str) -> None:
    stand_in = lazy_class(probe, name="evaluation-probe")
    assert not hasattr(stand_in, "__wrapped__")
    assert MODULE not in sys.modules


def test_a_target_with_another_name_is_refused(probe: str) -> None:
    stand_in = lazy_class(probe, name="evaluation-other")
    with pytest.raises(TypeError, match="is not a class named 'evaluation-other'"):
        instantiate(stand_in)


def test_a_name_is_required() -> None:
    with pytest.raises(TypeError, match="needs name="):
        lazy_class("anywhere:Thing", subject="evaluation")
