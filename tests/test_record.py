"""The record classes that replaced dataclasses on the svg path keep a dataclass's behaviour."""

import copy
import subprocess
import sys

import pytest

import flamespace as fs
from flamespace._record import FrozenInstanceError, fields
from flamespace.core.differential import Differential
from flamespace.core.metadata import Metadata
from flamespace.diagnostics import Diagnostics
from flamespace.errors import ArgumentError
from flamespace.formats import folded


def test_fields_defaults_equality_and_hash():
    assert fields(fs.SvgOptions)[:3] == ("title", "subtitle", "colors")  # Appearance's fields first
    assert fs.SvgOptions.names() == fields(fs.SvgOptions)
    a, b = fs.SvgOptions(title="x", width=800), fs.SvgOptions(title="x", width=800)
    assert a == b and a != fs.SvgOptions(title="y", width=800)
    assert hash(folded.ReadOptions(columns="2")) == hash(folded.ReadOptions(columns="2"))
    assert a.nameattr == {} and a.nameattr is not fs.SvgOptions().nameattr  # a fresh default each time
    assert fs.SvgOptions(base="f").base == ("f",)  # __post_init__ still runs
    assert folded.ReadOptions() == folded.ReadOptions(False, "auto") != folded.ReadOptions(columns="2")
    assert fs.TextOptions(threshold=0.5) != fs.SvgOptions()  # different classes never compare equal


def test_repr_as_a_dataclass():
    assert repr(folded.WriteOptions()) == "WriteOptions(header=True)"
    assert repr(Metadata("ns")) == "Metadata(unit='ns', metric=None, labels=mappingproxy({}))"
    assert repr(Diagnostics()) == "Diagnostics(max_examples=5, skipped=0, examples=[], warnings=[], empty=False)"


def test_frozen_records_refuse_assignment_mutable_ones_do_not_hash():
    options = fs.SvgOptions()
    with pytest.raises(FrozenInstanceError):
        options.width = 10  # type: ignore[misc]
    with pytest.raises(AttributeError):
        options.colour = "red"  # type: ignore[attr-defined]  (slots: no stray attributes)
    diagnostics = Diagnostics()
    diagnostics.skipped = 3
    assert diagnostics == Diagnostics(skipped=3)
    with pytest.raises(TypeError):
        hash(diagnostics)


def test_validation_replace_and_copy():
    with pytest.raises(ArgumentError, match="width must be a finite number > 0"):
        fs.SvgOptions(width=0)
    options = fs.SvgOptions(title="t")
    assert options.replace(width=600) == fs.SvgOptions(title="t", width=600)
    with pytest.raises(ArgumentError):
        options.replace(width=-1)
    with pytest.raises(TypeError, match="no field"):
        options.replace(colour="red")
    graph = fs.FlameGraph({("a",): 1})
    pair = Differential(graph, graph)
    assert copy.copy(pair) == pair and copy.deepcopy(options) == options
    assert Metadata("ns", labels={"k": "v"}).replace(metric="cpu") == Metadata("ns", "cpu", {"k": "v"})


def test_svg_path_imports_neither_typing_dataclasses_nor_speedscope(tmp_path):
    """What flamespace svg of a folded file imports (typing and dataclasses cost ~20 ms of start-up)."""
    source = tmp_path / "a.folded"
    source.write_text("a;b 3\na;c 2\n")
    code = (
        "import sys; from flamespace.cli import main; sys.argv = ['flamespace', 'svg', sys.argv[1], '-o', sys.argv[2]]\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print(' '.join(m for m in ('typing', 'dataclasses', 'inspect', 'click', 'flamespace.formats.speedscope') if m in sys.modules))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code, str(source), str(tmp_path / "a.svg")], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == ""
    assert (tmp_path / "a.svg").read_text().startswith("<?xml")


def test_speedscope_still_detected_and_listed(tmp_path):
    from flamespace.formats import recognition, registry

    assert [fmt.name for fmt in registry.FORMATS] == list(recognition.ORDER) == registry.names()
    assert registry.detect(b'{"$schema": "https://www.speedscope.app/file-format-schema.json"}').name == "speedscope"
    assert registry.detect(b"a;b 1\n").name == "folded"


def test_a_record_inherits_its_bases_fields_defaults_and_checks():
    """Option records are composed: each shared field and default is declared once (render.options.Appearance)."""
    from flamespace._record import Record, defaults, record

    @record
    class Base(Record):
        x: int = 1
        y: str = "a"

        def __post_init__(self) -> None:
            if self.x < 0:
                raise ArgumentError("x must be >= 0")

    @record
    class Derived(Base):
        z: float = 2.0
        y: str = "b"  # redeclared: keeps its place, takes the new default

    d = Derived(z=3)
    assert fields(Derived) == ("x", "y", "z") and defaults(Derived) == {"x": 1, "y": "b", "z": 2.0}
    assert d == Derived(z=3) and hash(d) == hash(Derived(z=3)) and d != Base()
    assert d.replace(x=5) == Derived(x=5, y="b", z=3) and copy.deepcopy(d) == d
    with pytest.raises(ArgumentError, match="x must be"):
        Derived(x=-1)  # the base's __post_init__ runs
    with pytest.raises(FrozenInstanceError):
        d.x = 2  # type: ignore[misc]


def test_svg_and_html_options_share_the_appearance_fields_declared_once():
    from flamespace._record import defaults
    from flamespace.render.html import HtmlOptions
    from flamespace.render.options import Appearance, SvgOptions

    shared = fields(Appearance)
    for cls in (SvgOptions, HtmlOptions):
        assert fields(cls)[: len(shared)] == shared
        assert not set(shared) & set(cls.__slots__), f"{cls.__name__} redeclares a field of Appearance"
        assert {f: defaults(cls)[f] for f in shared} == defaults(Appearance)
    with pytest.raises(ArgumentError, match="colors must be one of"):
        HtmlOptions(colors="plaid")  # Appearance's check, once for both
    assert HtmlOptions(colors="mem", negate=True).svg_options().colors == "mem"
