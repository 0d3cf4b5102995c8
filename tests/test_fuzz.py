"""The fuzz campaign (issue 13): mutants of the four kits through the CLI, each in a fenced child.

The campaign (fuzzmutate.py makes the mutants, fuzzinputs.py the sheets, fonts, art SVGs and
runaway templates it adds, fuzzrun.py runs and judges them) asserts for every mutant: exit 0,
1 or 2; no traceback; every problem one located line; under 10 s and 1 GB; nothing written
outside --out; a failed build leaves the previous one byte-identical. The fixed cases of issue
32 (fuzzinputs.HOSTILE) run as mutants too. The suite runs a few mutants (PNPKIT_FUZZ_COUNT,
default 60; CI sets 1000); run longer with PNPKIT_FUZZ_COUNT / PNPKIT_FUZZ_SEED, or outside
pytest with scripts/fuzz.py.
Then come the harness's own tests (it must be able to fail) and regression tests for the
defects the campaign found.
"""

from __future__ import annotations

import os
import random

import jinja2
import pytest

from fuzzinputs import HOSTILE, INPUT_OPS
from fuzzmutate import KITS, OPS, mutate, pristine
from fuzzrun import Campaign, campaign_mutants, unlocated
from pnpkit.build import pipeline as build
from pnpkit.typeset import fonts, text

FIRST_SEED = int(os.environ.get("PNPKIT_FUZZ_SEED", "0"))
COUNT = int(os.environ.get("PNPKIT_FUZZ_COUNT", "60"))  # make test; .ci/run sets 1000

# Failures of the defect classes other branches fix while this one is written, keyed by the
# exact signature the campaign gives them. TEMPORARY: delete this list once those branches are
# merged; the campaign must then pass without it.
ALLOWED: dict[str, str] = {}  # failure signature -> why it is tolerated; empty: every failure fails


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    """The kits copied and built once, for every campaign test of the module."""
    made = Campaign(tmp_path_factory.mktemp("fuzz") / "campaign", allowed=ALLOWED)
    made.prepare()
    return made


def _report(campaign, outcomes, what):
    figures = campaign.summary(outcomes)
    print(f"{what}: {figures}")  # shown by pytest -rP
    failed = campaign.failed(outcomes)
    return (
        figures,
        failed,
        f"{len(failed)} of {len(outcomes)} mutants failed: {figures}\n\n"
        + ("\n\n".join(o.report() for o in failed[:10])),
    )


def test_fuzz_campaign(campaign):
    outcomes = campaign.run(campaign_mutants(FIRST_SEED, COUNT))
    seeds = f"fuzz campaign, seeds {FIRST_SEED}..{FIRST_SEED + COUNT - 1}"
    figures, failed, report = _report(campaign, outcomes, seeds)
    assert not failed, report
    assert figures["mutants"] == COUNT
    if COUNT >= 60:  # the campaign reaches deep: some mutants still pass, most are refused,
        # builds ran (seeds 0..59: 8 pass, 49 refused, 17 builds)
        assert figures["exits"].get(0, 0) > COUNT // 50 and figures["exits"].get(1, 0) > COUNT // 2
        assert figures["builds"] > COUNT // 10


def test_fuzz_campaign_of_sheets_fonts_and_art(campaign):
    """Mutants that add a spreadsheet, a font, an art SVG or a runaway template (fuzzinputs)."""
    count = max(4, COUNT // 2)
    outcomes = campaign.run(campaign_mutants(FIRST_SEED, count, ops="inputs"))
    figures, failed, report = _report(campaign, outcomes, "sheets, fonts and art")
    assert not failed, report
    assert figures["mutants"] == count


@pytest.fixture(scope="module")
def hostile_outcomes(campaign):
    """Every case of HOSTILE run once, two at a time: {name: its outcome}."""
    outcomes = campaign.run([mutate("", 0, f"hostile:{name}") for name in HOSTILE])
    return {o.mutant.ops.split(":", 1)[1]: o for o in outcomes}


@pytest.mark.parametrize("name", HOSTILE)
def test_a_hostile_case_of_issue_32_ends_in_located_messages(hostile_outcomes, name):
    outcome = hostile_outcomes[name]
    assert not outcome.failures, outcome.report()
    if name.startswith("template-"):  # a runaway template: over its budget, said where
        assert outcome.code == 1, outcome.report()
        assert ": error: template " in outcome.output and "over budget: " in outcome.output


# --- the mutator ---------------------------------------------------------------------------------


def test_a_mutant_follows_from_kit_and_seed():
    first, again, other = mutate("anunnaki", 41), mutate("anunnaki", 41), mutate("anunnaki", 42)
    assert (first.files, first.edits, first.command, first.extra) == (
        again.files,
        again.edits,
        again.command,
        again.extra,
    )
    assert first.files != other.files


@pytest.mark.parametrize("op", sorted(OPS))
def test_every_edit_changes_the_kit(op):
    changed = 0
    for seed in range(20):
        mutant = pristine("star-cargo")
        mutant.command = "build"
        OPS[op][1](random.Random(seed), mutant, op)
        changed += mutant.files != pristine("star-cargo").files or bool(mutant.extra)
    assert changed >= 15, f"{op} changed the kit for only {changed} of 20 seeds"


@pytest.mark.parametrize("op", sorted(INPUT_OPS))
def test_every_input_edit_changes_the_kit(op):
    changed = 0
    for seed in range(20):
        mutant = pristine("star-cargo")
        INPUT_OPS[op][1](random.Random(seed), mutant, op)
        changed += mutant.files != pristine("star-cargo").files
    assert changed >= 15, f"{op} changed the kit for only {changed} of 20 seeds"


def test_campaign_mutants_cycle_through_the_kits():
    mutants = list(campaign_mutants(100, 8))
    assert [m.kit for m in mutants] == list(KITS) * 2
    assert [m.seed for m in mutants] == list(range(100, 108))


# --- the harness catches what it must ------------------------------------------------------------


@pytest.fixture(scope="module")
def harness(tmp_path_factory):
    """A campaign over the Mammoth Herd kit only, whose children run a stand-in for the CLI."""
    campaign = Campaign(tmp_path_factory.mktemp("harness") / "c", workers=1)
    campaign.prepare(kits=("mammoth-herd",))

    def run(target, command="validate", time_limit=10.0):
        campaign.target, campaign.time_limit = target, time_limit
        mutant = pristine("mammoth-herd")
        mutant.command = command
        campaign.run([mutant])
        return campaign.outcomes[-1]

    return run


def _signatures(outcome):
    return [sig for sig, _ in outcome.failures]


def test_the_harness_passes_a_clean_run(harness):
    from pnpkit.commands.cli import main

    outcome = harness(main, "build")
    assert (outcome.code, outcome.failures) == (0, [])


def test_the_harness_catches_a_crash(harness):
    def crash(argv):
        return {}["missing"]

    outcome = harness(crash)
    assert _signatures(outcome) == ["KeyError at test_fuzz.py:crash"]
    assert "scripts/fuzz.py --kit mammoth-herd --seed -1" in outcome.report()


def test_the_harness_catches_a_hang(harness):
    def hang(argv):
        while True:
            pass

    outcome = harness(hang, time_limit=1.0)
    assert _signatures(outcome) == ["timeout at test_fuzz.py:hang"]
    assert outcome.retried is not None  # run twice: a busy machine alone does not fail it


def test_the_harness_catches_a_memory_blowup(harness):
    def hog(argv):
        return len(bytearray(2 << 30))

    outcome = harness(hog)
    assert _signatures(outcome) == ["MemoryError at test_fuzz.py:hog"]


def test_the_harness_catches_a_traceback_printed_and_a_bad_exit_code(harness):
    def noisy(argv):
        print('Traceback (most recent call last):\n  File "x.py", line 1, in f\nValueError: boom')
        return 3

    outcome = harness(noisy)
    assert [m for _, m in outcome.failures] == ["exit code 3"]


def test_the_harness_catches_an_unlocated_message(harness):
    def spill(argv):
        print("components/mammoth-herd/art/a.svg:1:1: error: AttValue length too long")
        print("components/mammoth-herd/art/a.svg: error: no place given [svg]")
        return 1

    outcome = harness(spill)
    assert _signatures(outcome) == ["unlocated message"]
    assert (
        unlocated("x.yaml:3:7: error: fine [schema]\nx.xlsx:Deck!C3: warning: fine [sheet]", 1)
        == []
    )
    assert unlocated("pnpkit build: error: argument --paper: invalid choice", 2) == []


def test_the_harness_catches_a_write_outside_out(harness):
    def escape(argv):
        with open(
            "../../escaped.txt", "w"
        ) as f:  # cwd is SLOT/<kit>: this lands in the campaign folder
            f.write("x")
        return 1

    outcome = harness(escape)
    assert _signatures(outcome) == ["wrote outside --out"]
    assert "created base/escaped.txt" in outcome.failures[0][1]


def test_the_harness_catches_a_failed_build_that_damaged_the_last_one(harness):
    def damage(argv):
        os.unlink("out/mammoth-herd/mammoth-herd-en.pdf")
        return 1

    outcome = harness(damage, "build")
    assert _signatures(outcome) == ["previous build damaged"]
    assert harness(lambda argv: 1, "build").failures == []  # and the next mutant finds it restored


# --- regressions: defects the campaign found outside the classes other branches fix ---


@pytest.mark.parametrize(
    "value, tag",
    [("!!int Italiano", "!!int"), ("!!timestamp nope", "!!timestamp"), ("!!float x", "!!float")],
)
def test_fuzz_found_a_tag_that_cannot_read_its_value_is_located(kit, value, tag):
    kit.edit("components/mammoth-herd/game.yaml", '"Stone Age: The Mammoth Herd"', value)
    run = kit.validate()
    assert run.code == 1
    assert run.lines == [
        "components/mammoth-herd/game.yaml:7:7: error: YAML syntax "
        f"error: cannot read '{value.split()[1]}' as {tag} [yaml]"
    ]


def test_fuzz_found_a_template_that_does_not_compile_is_compiled_once(kit, monkeypatch):
    """A syntax error in a template every face imports was compiled again for every face."""
    kit.edit("templates/_icons.svg.j2", "{% macro", "{% macro {{")
    compiled = []
    original = jinja2.Environment.compile

    def compile(self, source, name=None, filename=None, raw=False, defer_init=False):
        compiled.append(name)
        return original(self, source, name, filename, raw, defer_init)

    monkeypatch.setattr(jinja2.Environment, "compile", compile)
    run = kit.validate()
    assert run.code == 1 and all("template syntax error" in line for line in run.lines)
    assert compiled.count("_icons.svg.j2") == 1


def test_fuzz_found_an_svg_error_on_every_face_parses_each_template_once(kit, monkeypatch):
    """Locating an SVG error in its template parsed the template family again for every face."""
    kit.edit(
        "templates/mammoth-herd/bonus-front.svg.j2",
        "{% block content %}",
        "{% block content %}<mask/>",
    )
    parsed = []
    original = jinja2.Environment._parse  # a compile's parse and parse()'s

    def parse(self, source, name, filename):
        parsed.append(source)
        return original(self, source, name, filename)

    monkeypatch.setattr(jinja2.Environment, "_parse", parse)
    build.forget_kept()  # as a new process: none parsed nor compiled before
    run = kit.validate()
    assert run.lines == [
        "templates/mammoth-herd/bonus-front.svg.j2:4:20: error: unsupported element <mask> [svg]"
    ]
    # bonus-front, the _face it extends and the _icons it imports among them (and the other
    # templates, whose faces render.same_for_every_item() asks about): once each
    assert len(parsed) >= 3 and len(parsed) == len(set(parsed))


def test_fuzz_found_a_control_character_in_yaml_is_located(kit):
    """libyaml refuses NUL and other controls with a ReaderError, which is not a MarkedYAMLError."""
    kit.edit(
        "components/mammoth-herd/game.yaml",
        '"Stone Age: The Mammoth Herd"',
        '"Stone Age: The\x00Mammoth Herd"',
    )
    run = kit.validate()
    assert run.lines == [
        "components/mammoth-herd/game.yaml:7:22: error: YAML syntax "
        "error: control characters are not allowed (U+0000) [yaml]"
    ]


def test_fuzz_found_a_language_listed_twice_is_an_error(kit):
    """Every text then lacked the second one without saying so, and rendering crashed."""
    kit.edit("components/mammoth-herd/game.yaml", "languages: [pl, en]", "languages: [pl, en, pl]")
    run = kit.validate()
    assert run.code == 1
    assert run.lines == [
        "components/mammoth-herd/game.yaml:8:21: error: language 'pl' is listed twice [schema]"
    ]


def _wrap_measuring_every_line(text, font, size_mm, width):
    """text.wrap as it was: every trial line measured whole."""
    lines = []
    for para in text.split("\n"):
        line = ""
        for word in para.split():
            trial = f"{line} {word}" if line else word
            if line and fonts.string_width(trial, font, size_mm) > width:
                lines.append(line)
                line = word
            else:
                line = trial
        lines.append(line)
    return lines


def test_fuzz_found_wrapping_adds_word_widths_and_breaks_where_measuring_lines_does():
    face = fonts.face_name(fonts.DEFAULT_FAMILY)
    words = (
        "Zażółć gęślą jaźń — the herd moves to the area of the resource; WWWWWWWWWW i i l.".split()
    )
    rng = random.Random(7)
    for _ in range(200):
        sample = " ".join(rng.choice(words) for _ in range(rng.randrange(1, 40)))
        size, width = rng.choice([2.1, 3.175, 3.5]), rng.uniform(5, 80)
        assert text.wrap(sample, face, size, width) == _wrap_measuring_every_line(
            sample, face, size, width
        )
    line = "ab cd ab"  # a box exactly as wide as a line: the sum of words must not break it early
    exact = fonts.string_width(line, face, 3.0)
    assert text.wrap(line + " cd", face, 3.0, exact) == [line, "cd"]


def test_fuzz_found_a_long_text_in_a_small_box_is_measured_in_linear_time(monkeypatch):
    """A pasted page of rules in a small box measured every trial line at every size tried: ~10
    s."""
    face = fonts.face_name(fonts.DEFAULT_FAMILY)
    calls = []
    measure = fonts.string_width
    monkeypatch.setattr(fonts, "string_width", lambda *a: calls.append(a) or measure(*a))
    text._unit_width.cache_clear()
    fitted = text.fit("ab cd " * 3000, face, 9, 6, 169, 11, 1.2)
    assert (fitted.fits, fitted.size_pt, fitted.needed, fitted.room) == (False, 6, 116, 4)
    assert len(calls) < 2 * 116  # each line of the last size once, and little else (was ~80,000)


def test_fuzz_found_a_field_named_by_a_number_does_not_crash_the_unknown_key_hint(kit):
    """The list of known keys was joined as strings, and a YAML key may be a number."""
    kit.edit("components/mammoth-herd/tiles.yaml", "    first: {type: enum", "    1.5: {type: enum")
    kit.edit(
        "components/mammoth-herd/tiles.yaml",
        "- {id: bonus-01, first: tool",
        "- {id: bonus-01, qq: tool",
    )
    run = kit.validate()
    assert (
        "components/mammoth-herd/tiles.yaml:16:22: error: unknown "
        "key 'qq' in an item of 'bonus-tiles' (known keys: id, count, "
        "per_player, tags, provenance, front, back, doc, 1.5, all, resource, scoring_icon) [schema]"
    ) in run.lines
