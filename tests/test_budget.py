"""Templates run on a budget (issue 32, item 5): what a face's render may make and how long it
may take is bounded, and going over is one located error naming the face and the template's
line, in well under 10 s. Their memory (under 1 GB) is held by the fuzz campaign's fenced
children (tests/test_fuzz.py, the hostile template cases)."""

from __future__ import annotations

import time

import pytest

from pnpkit.faces import budget
from pnpkit.faces.sandbox import Sandbox

WHERE = "components/mammoth-herd/tiles.yaml:16:7: error: template 'mammoth-herd/bonus-back.svg.j2'"
FACE = "(see docs/strangers.md) (rendering the back of 'bonus-01') [template]"
TOO_LONG = "a string of {:,} characters (a template may make at most 1,000,000)"
GUESS = "an operation on values this large could make more than 10,000,000 characters"
STEPS = "more than 1,000,000 loop iterations and calls in one face"

# (what the template's line 5 says, the over-budget message; the issue's cases first)
CASES = [
    ("{{ 'a' * 10**9 }}", TOO_LONG.format(10**9)),
    ("{{ 7 ** (10**8) }}", "an integer of more than 4,000 digits"),
    (
        "{% set ns = namespace(s='ab') %}{% for i in range(40) %}"
        "{% set ns.s = ns.s + ns.s %}{% endfor %}",
        TOO_LONG.format(2**20),
    ),
    (
        "{% set ns = namespace(s='ab') %}{% for i in range(40) %}"
        "{% set ns.s = ns.s ~ ns.s %}{% endfor %}",
        TOO_LONG.format(2**20),
    ),
    ("{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}", STEPS),
    ("{{ lipsum(10**6) }}", "lipsum() makes at most 100 paragraphs of at most 1,000 words"),
    (
        "{{ [1, 2] * 10**9 }}",
        "a list of 2,000,000,000 items (a template may make at most 1,000,000)",
    ),
    ("{{ 'a' | center(10**9) }}", GUESS),
    ("{{ 'a'.ljust(10**9) }}", GUESS),
    ("{{ '%0999999999d' % 1 }}", "a format width over 1,000,000 ('%0999999999')"),
    ("{{ '{:>999999999}'.format(1) }}", "a format width over 1,000,000 ('{:>999999999}')"),
    ("{{ '%*d' % (10**9, 1) }}", GUESS),
    ("{% set s = 'a' * 1000000 %}{{ s | replace('a', s) }}", GUESS),
    ("{% set s = 'a' * 1000000 %}{{ ([s] * 9) | join(s) }}", GUESS),
    ("{{ range(10) | batch(10**9) | list }}", GUESS),
    (
        "{% set x = range(1000) | list %}{% for a in x %}{% for b in x %}{% for c in x %}"
        "{% endfor %}{% endfor %}{% endfor %}",
        STEPS,
    ),
    (
        "{% set s = 'a' * 1000000 %}{% set x = [s] %}{{ x * 1000 }}",
        "a list of 1,000 items that prints as more than 10,000,000 characters",
    ),
    (
        "{% set s = 'a' * 100000 %}{% set x = [[s] * 10] %}{{ x * 1 }}{{ '' ~ [x, x] }}",
        "a list that prints as more than 1,000,000 characters",
    ),
    (
        "{% set s = 'a' * 100000 %}{% set x = [[s] * 10] %}{{ [x, x] }}",
        "a list that prints as more than 1,000,000 characters",
    ),
    (
        "{% set s = 'a' * 1000000 %}{% set ns = namespace(xs=[]) %}{% for i in range(20) %}"
        "{% set ns.xs = ns.xs + [s] %}{% endfor %}{{ ns.xs | string }}",
        GUESS,
    ),
    (
        "{% macro f(n) %}{% if n %}{% set r = f(n - 1) %}{{ r }}{{ r }}{% else %}x"
        "{% endif %}{% endmacro %}{{ f(40) }}",
        TOO_LONG.format(2**20),
    ),
]


def _template_line(kit, line: str) -> None:
    kit.edit(
        "templates/mammoth-herd/bonus-back.svg.j2",
        "{% block content %}\n",
        "{% block content %}\n" + line + "\n",
    )


@pytest.mark.parametrize("line, why", CASES)
def test_a_template_over_its_budget_is_a_located_error(kit, line, why):
    _template_line(kit, line)
    started = time.perf_counter()
    run = kit.validate()
    assert time.perf_counter() - started < 10
    assert run.code == 1
    assert run.lines[0] == f"{WHERE} line 5: over budget: {why} {FACE}"
    if why == STEPS:  # its other faces would run out too: said once
        assert [line for line in run.lines if "over budget" in line] == run.lines[:1]


def test_a_face_that_runs_out_of_time_is_said_once_and_quickly(kit, monkeypatch):
    monkeypatch.setattr(budget, "SECONDS", 0.3)
    _template_line(
        kit,
        "{% macro f(n) %}{% if n %}{{ f(n - 1) }}{{ f(n - 1) }}{% endif %}{% endmacro %}"
        "{{ f(60) }}",
    )
    started = time.process_time()
    run = kit.validate()
    assert time.process_time() - started < 3  # 16 faces use the template: one ran out
    over = [line for line in run.lines if "over budget" in line]
    assert over == [f"{WHERE} line 5: over budget: more than 0.3 s of CPU time on one face {FACE}"]


@pytest.mark.parametrize(
    "line",
    [
        "{% set s = 'a' * 1000000 %}{% for i in range(30) %}{{ s }}{% endfor %}",
        "{% macro m() %}" + "x" * 100000 + "{% endmacro %}{% for i in range(300) %}{{ m() }}"
        "{% endfor %}",
        "{% macro m() %}{% for i in range(300) %}" + "x" * 100000 + "{% endfor %}{% endmacro %}"
        "{{ m() }}",
    ],
    ids=["printed", "macro-output", "macro-text"],
)
def test_a_face_that_writes_too_much_is_an_error(kit, line):
    """Every character a face's template writes is counted before it is joined: into the SVG,
    a macro's output or a {% set %} block."""
    _template_line(kit, line)
    run = kit.validate()
    assert run.lines[0] == (
        f"{WHERE} line 5: over budget: the face's template writes more than "
        f"20,000,000 characters {FACE}"
    )


@pytest.mark.parametrize(
    "source, shown",
    [
        (
            "{{ 'ab' * 3 }}|{{ [1] * 2 }}|{{ 2 ** 10 }}|{{ 7 * 6 }}|{{ 1.5 * 2 }}",
            "ababab|[1, 1]|1024|42|3.0",
        ),
        ("{{ 'a' + 'b' }}|{{ [1] + [2] }}|{{ 1 + 2.5 }}|{{ 'x' ~ 1 ~ 'y' }}", "ab|[1, 2]|3.5|x1y"),
        (
            "{{ '%05.1f' % 2.5 }}|{{ '%d' % 20000000 }}|{{ '{:>4}'.format(7) }}",
            "002.5|20000000|   7",
        ),
        ("{{ '%(a)s' % {'a': 1} }}|{{ '%s-%s' | format(1, 2) }}|{{ 7 % 3 }}", "1|1-2|1"),
        (
            "{{ 'a,b' | replace(',', ';') }}|{{ [1, 2] | join('+') }}|{{ 'x' | center(5) }}",
            "a;b|1+2|  x  ",
        ),
        (
            "{% set t %}<{{ 1 }}>{% endset %}{{ t }}|{{ range(5) | batch(2) | list | length }}",
            "<1>|3",
        ),
        (
            "{% for x in 'ab' %}{{ x }}{% endfor %}|{% for k in {'a': 1} %}{{ k }}{% endfor %}",
            "ab|a",
        ),
        ("{% for x in [3, 1, 2] | sort | map('string') %}{{ x }}{% endfor %}", "123"),
    ],
)
def test_what_stays_within_the_budget_renders_as_jinja_renders_it(source, shown):
    env = Sandbox(autoescape=True)
    assert env.from_string(source).render() == shown


def test_a_budget_counts_steps_across_the_faces_render_and_starts_afresh():
    env = Sandbox()
    template = env.from_string("{% for i in range(100000) %}{% endfor %}")
    env.budget.start()
    for _ in range(9):  # 100,001 steps each: the loop's and the call of range()
        template.render()
    with pytest.raises(budget.OutOfTime, match="1,000,000 loop iterations"):
        template.render()
    env.budget.start()
    template.render()
