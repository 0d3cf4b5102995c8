"""Packs from strangers: templates in a sandbox, a pack's Python only when trusted, and then
with a time and memory limit."""

from __future__ import annotations

import time
from pathlib import Path

import jinja2
import pytest

from pnpkit.build import pipeline as build
from pnpkit.checks import trust
from pnpkit.commands.cli import main
from pnpkit.faces import sandbox
from pnpkit.faces.frozen import freeze
from pnpkit.faces.sandbox import PackDataRefused, Sandbox
from pnpkit.kinds.registry import default_registry
from pnpkit.pack.schema import load_pack

SKIPPED = (
    "components/mammoth-herd/game.yaml:4:1: warning: the pack is not trusted, so its Python "
    "(components/mammoth-herd/rules.py) did not run and "
    "its check SAM-R04 (herd-area-dice) was skipped; "
    "if you trust its author: pnpkit trust components/mammoth-herd (or --trust for one run) [trust]"
)

MARKER_RULES = """
from pathlib import Path
from pnpkit.checks.rules import rule
Path("ran.txt").write_text("rules.py ran")

@rule("herd-area-dice")
def herd_area_dice(ctx):
    return iter(())
"""


@pytest.fixture
def untrusted(tmp_path, monkeypatch):
    """Nothing is trusted: the user's list is an empty file of this test's own."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))


def _template_line(kit, line: str) -> None:
    kit.edit(
        "templates/mammoth-herd/bonus-back.svg.j2",
        "{% block content %}\n",
        "{% block content %}\n" + line + "\n",
    )


# ------------------------------------------------------------------ templates in a sandbox

ESCAPES = [
    (
        "{{ cycler.__init__.__globals__.os.popen('touch pwned').read() }}",
        "access to attribute '__init__' of 'type' object is unsafe.",
    ),
    (
        "{{ ''.__class__.__mro__[1].__subclasses__() }}",
        "access to attribute '__class__' of 'str' object is unsafe.",
    ),
    (
        "{{ text_box.pack.root.joinpath('pwned').write_text('x') }}",
        "access to attribute 'pack' of 'TextBoxes' object is unsafe.",
    ),
    (
        "{{ lipsum.__globals__ }}",
        "access to attribute '__globals__' of 'function' object is unsafe.",
    ),
]


@pytest.mark.parametrize(
    "line, why",
    ESCAPES,
    ids=["os-via-globals", "subclasses", "object-handed-over", "function-globals"],
)
def test_a_template_cannot_reach_python(kit, line, why):
    _template_line(kit, line)
    run = kit.validate()
    assert run.code == 1
    assert not Path("pwned").exists()
    expected = (
        "components/mammoth-herd/tiles.yaml:{}:{}: error: "
        "template 'mammoth-herd/bonus-back.svg.j2' line 5: "
        f"not allowed in a template: {why} (templates "
        "may use their values and pnpkit's helpers only) "
        f"(rendering the back of 'bonus-01') [template]"
    )
    first = next(line for line in run.lines if "not allowed" in line)
    file, line_no, col, rest = first.split(":", 3)
    assert first == expected.format(line_no, col)


def test_templates_still_build_lists_through_namespace(kit):
    _template_line(
        kit,
        "{% set ns = namespace(xs=[]) %}{% for i in "
        "range(3) %}{% set ns.xs = ns.xs + [i] %}{% endfor %}"
        "<desc>{{ ns.xs | join(',') }}</desc>",
    )
    assert kit.validate().code == 0


def test_a_dicts_keys_read_as_attributes_as_the_sandbox_reads_them():
    env = Sandbox()
    d = {"title": "T", "items": "shadowed", "_secret": 1}
    assert env.from_string("{{ d.title }}|{{ d._secret }}").render(d=d) == "T|1"
    # a dict's own attribute first, as Jinja does: the method, not the key
    assert env.from_string("{{ d.items() | list | length }}").render(d=d) == "3"
    with pytest.raises(jinja2.exceptions.SecurityError, match="'__class__' of 'dict'"):
        env.from_string("{{ d.__class__.__mro__ }}").render(d=d)
    # a template's own dict may change; the pack's data may not (tests/test_sandbox.py)
    assert env.from_string("{{ d.update({}) }}{{ d | length }}").render(d=d) == "None3"
    with pytest.raises(PackDataRefused, match="the pack's data cannot be changed"):
        env.from_string("{{ d.update({}) }}").render(d=freeze(d))


def test_the_sandboxs_shortcuts_render_what_jinjas_own_ways_render(monkeypatch):
    """Sandbox.make_globals() copies the globals Jinja's ChainMap would show, and Sandbox.call()
    calls text_box() and macros as Jinja's checks would let them through: every kit renders the
    same faces with the same problems either way. A template's own globals stay its own."""
    kits = Path(__file__).resolve().parents[1] / "components"

    def rendered() -> dict[str, tuple[list[str], list[str]]]:
        made = {}
        for pack in sorted(kits.iterdir()):
            result = build.validate(pack)
            svgs = [face.svg for faces in result.faces.values() for face in faces]
            made[pack.name] = (svgs, [str(p) for p in result.problems])
        return made

    ours = rendered()
    assert all(svgs for svgs, _ in ours.values())
    jinjas = jinja2.sandbox.ImmutableSandboxedEnvironment
    monkeypatch.setattr(sandbox.Sandbox, "make_globals", jinjas.make_globals)
    monkeypatch.setattr(sandbox.Sandbox, "call", jinjas.call)
    assert rendered() == ours
    monkeypatch.undo()
    env = Sandbox()
    env.globals["shared"] = "env"
    template = env.from_string("{{ shared }}{{ own }}", globals={"own": "!"})
    assert template.render() == "env!" and "own" not in env.globals
    # a build's environment keeps each template it loaded (a dict, not Jinja's LRU of 400)
    pack, problems = load_pack(kits / "mammoth-herd")  # the pack alone: no face need be drawn
    assert pack is not None and problems == []
    env = sandbox.environment(pack, default_registry())
    names = ["_face.svg.j2"] * 2 + [f"t{n}" for n in range(500)] + ["_face.svg.j2"]
    env.loader = jinja2.DictLoader({name: name for name in names})
    loaded = [env.get_template(name) for name in names]
    assert loaded[0] is loaded[1] is loaded[-1]


def test_a_macro_called_in_a_loop_gets_its_arguments_and_nothing_of_the_loop():
    env = Sandbox()
    source = (
        "{% macro m(x, y=2) %}{{ x }}{{ y }}{{ kwargs }}{{ varargs }}{% endmacro %}"
        "{% for i in range(2) %}{% set z = i %}{{ m(i, y=z) }};{% endfor %}"
    )
    assert env.from_string(source).render() == "00{}();11{}();"


def test_a_macro_escapes_as_the_place_it_is_called_from_asks():
    """A macro's output is marked safe or not by where it is called (Jinja passes it the
    evaluation context): Sandbox.call() passes it as Jinja's own call does, so text added to
    a macro's output under `{% autoescape false %}` is not escaped, and is elsewhere."""
    source = (
        "{% macro m() %}<b>{% endmacro %}"
        "{% autoescape false %}{{ m() + '&' }}{% endautoescape %}|{{ m() + '&' }}"
    )
    ours = Sandbox(autoescape=True).from_string(source).render()
    jinjas = jinja2.sandbox.ImmutableSandboxedEnvironment(autoescape=True)
    assert ours == jinjas.from_string(source).render() == "<b>&|<b>&amp;"


# ---------------------------------------------------------------- a pack's Python only when trusted


def test_an_untrusted_pack_validates_all_but_its_code(kit, untrusted):
    (kit.root / kit.pack / "rules.py").write_text(MARKER_RULES)
    run = kit.validate()
    assert run.code == 0
    assert run.lines == [SKIPPED]
    assert not (kit.root / "ran.txt").exists()
    assert kit.run("validate", str(kit.pack), "--strict").code == 1


def test_untrusted_still_reports_the_other_mistakes(kit, untrusted):
    kit.edit("components/mammoth-herd/game.yaml", "group: herd, exact: 1", "group: herd, exact: 2")
    run = kit.validate()
    assert run.code == 1
    assert run.lines[0] == SKIPPED
    assert (
        run.lines[1].startswith("components/mammoth-herd/game.yaml:47:5: error:")
        and "[SAM-C03]" in run.lines[1]
    )


def test_trust_is_remembered_per_folder_and_can_be_taken_back(kit, untrusted):
    (kit.root / kit.pack / "rules.py").write_text(MARKER_RULES)
    assert kit.run("trust", str(kit.pack)).code == 0
    assert trust.trusted_folders() == [(kit.root / kit.pack).resolve()]
    assert kit.validate().lines == []
    assert (kit.root / "ran.txt").read_text() == "rules.py ran"
    assert kit.run("trust").out.splitlines() == [str((kit.root / kit.pack).resolve())]
    assert kit.run("trust", "--remove", str(kit.pack)).code == 0
    assert kit.validate().lines == [SKIPPED]
    listed = kit.run("trust")  # an empty list says so, beside the list a script reads
    assert (listed.code, listed.out) == (0, "")
    assert listed.err == f"no folder is trusted (the list is kept in {trust.store()})\n"


def test_trusting_a_folder_trusts_the_packs_below_it(kit, untrusted):
    assert kit.run("trust", "components").code == 0
    assert kit.validate().lines == []


def test_trust_for_one_run_is_not_remembered(kit, untrusted):
    (kit.root / kit.pack / "rules.py").write_text(MARKER_RULES)
    assert kit.run("validate", str(kit.pack), "--trust").lines == []
    assert (kit.root / "ran.txt").exists()
    assert trust.trusted_folders() == []


def test_untrusted_and_trusted_builds_print_the_same_pdf(kit, untrusted):
    assert kit.run("build", str(kit.pack), "--out", "a").code == 0
    assert kit.run("build", str(kit.pack), "--out", "b", "--trust").code == 0
    for lang in ("pl", "en"):
        name = f"mammoth-herd/mammoth-herd-{lang}.pdf"
        assert (kit.root / "a" / name).read_bytes() == (kit.root / "b" / name).read_bytes()


def test_a_pack_cannot_trust_itself(kit, untrusted):
    """The list lives in the user's configuration folder; nothing in a pack is read for it."""
    (kit.root / kit.pack / "trusted-folders.txt").write_text(
        str((kit.root / kit.pack).resolve()) + "\n"
    )
    assert trust.store().parent != (kit.root / kit.pack)
    assert kit.validate().lines == [SKIPPED]


def test_the_rules_file_must_lie_inside_the_pack(kit):
    (kit.root / "elsewhere.py").write_text(MARKER_RULES)
    kit.edit("components/mammoth-herd/game.yaml", "players:", "rules: ../../elsewhere.py\nplayers:")
    run = kit.validate()
    assert run.code == 1
    assert (
        "components/mammoth-herd/game.yaml:9:8: error: rules "
        "file '../../elsewhere.py' lies outside the pack "
        "components/mammoth-herd; it must be a file inside it [references]"
    ) in run.lines
    assert not (kit.root / "ran.txt").exists()


def test_a_symlinked_rules_file_is_refused(kit):
    (kit.root / "elsewhere.py").write_text(MARKER_RULES)
    (kit.root / kit.pack / "rules.py").unlink()
    (kit.root / kit.pack / "rules.py").symlink_to(kit.root / "elsewhere.py")
    run = kit.validate()
    assert run.code == 1
    assert (
        "components/mammoth-herd/game.yaml:4:1: error: rules file 'rules.py' lies outside the pack "
        "components/mammoth-herd; it must be a file inside it [references]"
    ) in run.lines
    assert not (kit.root / "ran.txt").exists()


# ------------------------------------------------------------------ a time and memory limit

HANGS = """
from pnpkit.checks.rules import rule

@rule("herd-area-dice")
def herd_area_dice(ctx):
    while True:
        pass
    yield "never"
"""


def test_a_rule_that_never_returns_is_stopped_and_named(kit):
    (kit.root / kit.pack / "rules.py").write_text(HANGS)
    started = time.monotonic()
    run = kit.run("validate", str(kit.pack), "--code-timeout", "1")
    assert time.monotonic() - started < 5
    assert run.code == 1
    assert run.lines == [
        "components/mammoth-herd/game.yaml:50:5: error: rule "
        "'herd-area-dice' (the pack's own Python) did not finish "
        "within 1 s and was stopped (if it is just slow: --code-timeout SECONDS) [SAM-R04]"
    ]


def test_a_huge_value_while_loading_is_stopped(kit):
    (kit.root / kit.pack / "rules.py").write_text("X = 10 ** 10 ** 10\n")
    started = time.monotonic()
    run = kit.run("validate", str(kit.pack), "--code-timeout", "1")
    assert time.monotonic() - started < 5
    assert run.code == 1
    assert run.lines in (
        [
            "components/mammoth-herd/rules.py:1:1: error: loading "
            "the rules file did not finish within 1 s and was stopped "
            "(if it is just slow: --code-timeout SECONDS) [rules]"
        ],
        [
            "components/mammoth-herd/rules.py:1:1: error: loading "
            "the rules file was stopped: MemoryError:  [rules]"
        ],
    )


def test_a_rule_that_eats_memory_is_stopped(kit):
    (kit.root / kit.pack / "rules.py").write_text(
        HANGS.replace("while True:\n        pass", "hog = [0] * 10 ** 10")
    )
    run = kit.run("validate", str(kit.pack), "--code-timeout", "5")
    assert run.code == 1
    assert run.lines == [
        "components/mammoth-herd/game.yaml:50:5: error: rule "
        "'herd-area-dice' crashed: MemoryError:  [SAM-R04]"
    ]


@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf", "x"])
def test_the_time_limit_must_be_a_sane_number(kit, capsys, value):
    with pytest.raises(SystemExit) as exc:
        main(["validate", str(kit.pack), "--code-timeout", value])
    assert exc.value.code == 2
    assert (
        f"argument --code-timeout: must be a number of seconds from 0 to 3600 (got '{value}')"
        in capsys.readouterr().err
    )
