"""Hostile packs (issue 13): nothing is written outside --out, nothing is read from outside the
pack.

Each test breaks a copy of the Mammoth Herd kit the way the issue's attacker or
careless user did, builds it through the CLI, and checks the exact located
message, exit code 1 (2 for a bad option), that no file appeared anywhere but
--out (nothing at all for a failed build), and that the content of the files
outside the pack shows up nowhere: not in the messages, not in the output.
"""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest
from PIL import Image

from pnpkit.build import preview
from pnpkit.pack import paths
from pnpkit.svg.compiler import compile_svg
from pnpkit.svg.ops import SvgError

M = "components/mammoth-herd"
HERD = "templates/mammoth-herd/herd-standee.svg.j2"  # the standee's template: one item, one face
SECRET = "SECRET-7f3a9c-never-to-be-seen"
PNG = b"\x89PNG\r\n\x1a\n"
EN = ("--lang", "en")  # faces are rendered: one language is enough, and twice as fast


@pytest.fixture
def outside(kit):
    """A folder beside the kit copy (outside the pack and its templates) holding a secret of
    each kind."""
    folder = kit.root / "outside"
    folder.mkdir()
    (folder / "secret.txt").write_text(f"{SECRET}\nsecond line {SECRET}\n", encoding="utf-8")
    (folder / "secret.yaml").write_text(f"stolen: {SECRET}\n", encoding="utf-8")
    (folder / "secret.svg.j2").write_text(
        f'<svg xmlns="http://www.w3.org/2000/svg"><desc>{SECRET}</desc></svg>\n'
    )
    (folder / "secret.png").write_bytes(PNG + SECRET.encode())
    return folder


def files(root: Path) -> set[str]:
    """Every path under root, links not followed."""
    found = set()
    for folder, dirs, names in os.walk(root):
        for name in dirs + names:
            found.add(os.path.relpath(os.path.join(folder, name), root))
    return found


def hostile_build(kit, *extra: str, code: int = 1):
    """Build the broken copy; check the exit code, that nothing was written and no secret leaked."""
    before = files(kit.root)
    run = kit.build(*extra)
    assert run.code == code, run.out + run.err
    assert files(kit.root) == before  # nothing written, inside --out or outside it
    assert SECRET not in run.out + run.err
    assert "root:x:0" not in run.out + run.err
    return run


def place(kit, rel: str, text: str, shift: int = 0) -> str:
    """'rel:line:column' where text first starts in a file of the copy (plus shift columns), so
    the expected messages stay exact when the kit's files move a line."""
    source = (kit.root / rel).read_text(encoding="utf-8")
    before = source[: source.index(text)]
    return f"{rel}:{before.count(chr(10)) + 1}:{len(before) - before.rfind(chr(10)) + shift}"


def front(kit) -> str:
    """Where herd.yaml names the standee's template."""
    return place(kit, f"{M}/herd.yaml", "mammoth-herd/herd-standee.svg.j2")


def item(kit) -> str:
    """Where herd.yaml's one item starts."""
    return place(kit, f"{M}/herd.yaml", "id: herd")


def inject(kit, markup: str) -> None:
    """Put markup at the top of the standee's drawing (line 7 of its template)."""
    kit.edit(HERD, "{% block content %}\n", "{% block content %}\n" + markup + "\n")


# ---------------------------------------------------------------- writes outside --out


def test_language_code_that_climbs_out_of_the_output_folder(kit):
    kit.edit(f"{M}/game.yaml", "languages: [pl, en]", 'languages: [pl, en, "../../../escaped"]')
    run = hostile_build(kit)
    assert run.lines == [
        f"{M}/game.yaml:8:21: error: language code "
        "'../../../escaped' is not a language tag like en, pt-BR "
        "or zh-Hant (it names files) [schema]"
    ]


@pytest.mark.parametrize(
    "code, shown",
    [
        ("/tmp/abs", "'/tmp/abs'"),
        ("en/../..", "'en/../..'"),
        ("EN", "'EN'"),
        ("e", "'e'"),
        ('"en\\n"', "'en\\n'"),
        ('"en\\0x"', "'en\\x00x'"),
        ("en-" + "x" * 9, "'en-xxxxxxxxx'"),
    ],
)
def test_language_codes_that_are_not_tags(kit, code, shown):
    kit.edit(f"{M}/game.yaml", "languages: [pl, en]", f"languages: [pl, en, {code}]")
    assert hostile_build(kit).lines == [
        f"{M}/game.yaml:8:21: error: language code {shown} is not a "
        "language tag like en, pt-BR or zh-Hant (it names files) [schema]"
    ]


def test_language_listed_twice(kit):
    kit.edit(f"{M}/game.yaml", "languages: [pl, en]", "languages: [pl, en, pl]")
    assert hostile_build(kit).lines == [
        f"{M}/game.yaml:8:21: error: language 'pl' is listed twice [schema]"
    ]


def test_language_listed_twice_in_other_case(kit):
    kit.edit(f"{M}/game.yaml", "languages: [pl, en]", "languages: [pl, en, zh-Hant, zh-hant]")
    run = hostile_build(kit)  # and zh-Hant has no texts: those problems are reported too
    assert (
        f"{M}/game.yaml:8:30: error: language 'zh-hant' is listed twice (as 'zh-Hant') [schema]"
        in run.lines
    )


def test_language_tags_that_are_fine():
    for tag in ("en", "pl", "eo", "pt-BR", "zh-Hant", "sr-Latn-RS", "ast", "es-419"):
        assert paths.lang_problem(tag) is None, tag


def test_lang_option_that_is_a_path_is_a_usage_error(kit):
    run = hostile_build(kit, "--lang", "../../x", code=2)
    assert (
        "argument --lang: language code '../../x' is not a "
        "language tag like en, pt-BR or zh-Hant (it names files)" in run.err
    )


@pytest.mark.parametrize(
    "value, shown",
    [
        ('"../../evil"', "'../../evil'"),
        ('"a/b"', "'a/b'"),
        ('".hidden"', "'.hidden'"),
        ('".."', "'..'"),
        ('"ok\\n"', "'ok\\n'"),
        ('"a\\0b"', "'a\\x00b'"),
        ('"a\\tb"', "'a\\tb'"),
    ],
)
def test_item_ids_that_are_not_file_names(kit, value, shown):
    at = place(kit, f"{M}/herd.yaml", "id: herd", 4)
    kit.edit(f"{M}/herd.yaml", "- id: herd", f"- id: {value}")
    run = hostile_build(kit)
    assert run.lines == [
        f"{at}: error: id {shown} may hold only letters, digits, '.', '_' and '-', "
        "starting with a letter or digit (it names files) [schema]"
    ]


@pytest.mark.parametrize("value", ["NUL", "con", "Com1.x", "herd."])
def test_ids_windows_cannot_write(kit, value):
    at = place(kit, f"{M}/herd.yaml", "id: herd", 4)
    kit.edit(f"{M}/herd.yaml", "- id: herd", f"- id: {value}")
    assert hostile_build(kit).lines == [
        f"{at}: error: id '{value}' cannot name a file on "
        "Windows (a device name, or a final '.') [schema]"
    ]


def test_ids_that_differ_only_in_case(kit):
    first = place(kit, f"{M}/tiles.yaml", "{id: bonus-01")
    second = place(kit, f"{M}/tiles.yaml", "{id: bonus-02")
    kit.edit(f"{M}/tiles.yaml", "id: bonus-02", "id: BONUS-01")
    assert hostile_build(kit).lines == [
        f"{second}: error: id 'BONUS-01' differs from 'bonus-01' (at {first}) only in case: "
        "they would name the same file on Windows and macOS [unique-ids]"
    ]


def test_group_names_that_differ_only_in_case(kit):
    kit.edit(f"{M}/herd.yaml", "\nherd:", "\nBonus-Tiles:")
    first = place(kit, f"{M}/herd.yaml", "Bonus-Tiles:")  # herd.yaml is read before tiles.yaml
    second = place(kit, f"{M}/tiles.yaml", "bonus-tiles:")
    assert hostile_build(kit).lines == [
        f"{second}: error: group 'bonus-tiles' differs "
        f"from 'Bonus-Tiles' (at {first}) only in case: "
        "they would name the same folder on Windows and macOS [unique-ids]"
    ]


def test_overlong_id(kit):
    at = place(kit, f"{M}/herd.yaml", "id: herd", 4)
    kit.edit(f"{M}/herd.yaml", "- id: herd", "- id: " + "h" * 65)
    assert hostile_build(kit).lines == [
        f"{at}: error: id 'hhhhhhhhhhhhhhhhhhhh…' is 65 "
        "characters long; at most 64 (it names files) [schema]"
    ]


def test_group_name_that_climbs_out(kit):
    kit.edit(f"{M}/herd.yaml", "\nherd:", '\n"../../herd":')
    assert hostile_build(kit).lines == [
        f"{M}/herd.yaml:2:1: error: group name '../../herd' "
        "may hold only letters, digits, '.', '_' and '-', "
        "starting with a letter or digit (it names files) [schema]"
    ]


@pytest.mark.parametrize(
    "value, message",
    [
        (
            '".."',
            "pack id '..' may hold only letters, digits, '.', '_' "
            "and '-', starting with a letter or digit (it names files)",
        ),
        (
            '"../../../x"',
            "pack id '../../../x' may hold only letters, digits, '.', "
            "'_' and '-', starting with a letter or digit (it names files)",
        ),
        (
            "pnpkit-cache",
            "pack id 'pnpkit-cache' is reserved: pnpkit keeps its cache in OUT/pnpkit-cache/",
        ),
    ],
)
def test_pack_ids_that_are_not_folder_names(kit, value, message):
    kit.edit(f"{M}/game.yaml", "id: mammoth-herd", f"id: {value}")
    assert hostile_build(kit).lines == [f"{M}/game.yaml:4:5: error: {message} [schema]"]


def test_reserved_pack_id_is_the_cache_folder():
    from pnpkit.build import pipeline as build
    from pnpkit.pack.items import RESERVED_ID

    assert RESERVED_ID == build.CACHE_DIR


# ---------------------------------------------------------------- reads outside the pack: YAML


def test_component_yaml_linked_to_etc_passwd(kit):
    (kit.root / M / "zz.yaml").symlink_to("/etc/passwd")
    assert hostile_build(kit).lines == [
        f"{M}/zz.yaml:1:1: error: '{M}/zz.yaml' leads outside the pack; it was not read "
        "(a pack's YAML files must lie inside its folder) [paths]"
    ]


def test_component_yaml_linked_outside(kit, outside):
    (kit.root / M / "stolen.yaml").symlink_to(outside / "secret.yaml")
    assert hostile_build(kit).lines == [
        f"{M}/stolen.yaml:1:1: error: '{M}/stolen.yaml' leads outside the pack; it was not read "
        "(a pack's YAML files must lie inside its folder) [paths]"
    ]


def test_manifest_linked_outside(kit, outside):
    manifest = kit.root / M / "game.yaml"
    manifest.unlink()
    manifest.symlink_to(outside / "secret.yaml")
    assert hostile_build(kit).lines == [
        f"{M}/game.yaml:1:1: error: '{M}/game.yaml' leads outside the pack; it was not read "
        "(a pack's YAML files must lie inside its folder) [paths]"
    ]


def test_yaml_that_is_not_a_plain_file_is_not_read(kit):
    os.mkfifo(kit.root / M / "pipe.yaml")  # reading it would wait for ever
    assert hostile_build(kit).lines == [
        f"{M}/pipe.yaml:1:1: error: cannot read file: not a regular file [schema]"
    ]


# ---------------------------------------------------------------- reads outside the pack: templates


TEMPLATE_HINT = (
    "leads outside the pack; it was not read (templates come "
    "from the pack, the shared templates/ folder or pnpkit's own)"
)


def test_face_template_linked_outside(kit, outside):
    link = kit.root / HERD
    link.unlink()
    link.symlink_to(outside / "secret.svg.j2")
    assert hostile_build(kit, *EN).lines == [
        f"{front(kit)}: error: template "
        "'mammoth-herd/herd-standee.svg.j2' for the front of 'herd': "
        f"'{HERD}' {TEMPLATE_HINT} [paths]"
    ]


def test_face_template_linked_to_etc_passwd(kit):
    link = kit.root / HERD
    link.unlink()
    link.symlink_to("/etc/passwd")
    assert hostile_build(kit, *EN).lines == [
        f"{front(kit)}: error: template "
        "'mammoth-herd/herd-standee.svg.j2' for the front of 'herd': "
        f"'{HERD}' {TEMPLATE_HINT} [paths]"
    ]


@pytest.mark.parametrize(
    "statement, line",
    [
        ('{% include "mammoth-herd/stolen.svg.j2" %}', 7),
        ('{% import "mammoth-herd/stolen.svg.j2" as stolen %}', 7),
    ],
)
def test_included_or_imported_template_linked_outside(kit, outside, statement, line):
    (kit.root / "templates/mammoth-herd/stolen.svg.j2").symlink_to(outside / "secret.svg.j2")
    inject(kit, statement)
    assert hostile_build(kit, *EN).lines == [
        f"{item(kit)}: error: template 'mammoth-herd/herd-standee.svg.j2' line {line}: template "
        f"'mammoth-herd/stolen.svg.j2': 'templates/mammoth-herd/stolen.svg.j2' {TEMPLATE_HINT} "
        "(rendering the front of 'herd') [paths]"
    ]


def test_extended_base_template_linked_outside(kit, outside):
    base = kit.root / "templates/_face.svg.j2"  # the copy's shared base, which every face extends
    base.unlink()
    base.symlink_to(outside / "secret.svg.j2")
    run = hostile_build(kit, *EN)
    assert run.lines[0] == (
        f"{item(kit)}: error: template 'mammoth-herd/herd-standee.svg.j2' "
        "line 4: template '_face.svg.j2': "
        f"'templates/_face.svg.j2' {TEMPLATE_HINT} (rendering the front of 'herd') [paths]"
    )
    assert all("[paths]" in line for line in run.lines)


def test_pack_templates_folder_linked_outside(kit, outside):
    (outside / "mammoth-herd").mkdir()
    (outside / "mammoth-herd" / "herd-standee.svg.j2").write_text(
        f"<svg>{SECRET}</svg>", encoding="utf-8"
    )
    (kit.root / M / "templates").symlink_to(outside)  # the pack's own templates/ is searched first
    assert hostile_build(kit, *EN).lines == [
        f"{front(kit)}: error: template "
        "'mammoth-herd/herd-standee.svg.j2' for the front of 'herd': "
        f"'{M}/templates/mammoth-herd/herd-standee.svg.j2' {TEMPLATE_HINT} [paths]"
    ]


def test_shared_templates_folder_linked_elsewhere(kit, outside):
    """The shared templates/ is taken where it stands: a link of that name leads outside."""
    (kit.root / "templates").rename(outside / "templates")
    (kit.root / "templates").symlink_to(outside / "templates")
    run = hostile_build(kit, *EN)
    assert (
        f"{front(kit)}: error: template "
        "'mammoth-herd/herd-standee.svg.j2' for the front of 'herd': "
        f"'{HERD}' {TEMPLATE_HINT} [paths]"
    ) in run.lines
    assert all(
        line.endswith(f"{TEMPLATE_HINT} [paths]") for line in run.lines
    )  # every face's template


def test_pack_folder_named_through_a_link_builds(kit):
    """The pack folder is the user's choice: a link to it is followed, and what lies inside it
    is inside."""
    (kit.root / "components" / "herd-link").symlink_to(kit.root / M)
    run = kit.run("build", "components/herd-link", "--out", "build", *EN)
    assert run.code == 0, run.out
    assert (kit.root / "build/mammoth-herd/mammoth-herd-en.pdf").is_file()


def test_template_that_is_not_utf8(kit):
    (kit.root / HERD).write_bytes(b"<svg>\xff\xfe</svg>")
    assert hostile_build(kit, *EN).lines == [
        f"{front(kit)}: error: template "
        "'mammoth-herd/herd-standee.svg.j2' for the front of 'herd': "
        f"'{HERD}' is not UTF-8 text (byte 5) [paths]"
    ]


# ---------------------------------------------------------------- reads outside the pack: images


IMAGE_HINT = (
    "leads outside the pack; it was not read (an image must be a file in the pack or a data: URI)"
)


def svg_problem(kit, line: int, message: str) -> str:
    """A problem in the standee's SVG that the template does not show, placed at the item."""
    return f"{item(kit)}: error: {message} (line {line} of the SVG for the front of 'herd') [svg]"


HIDING_PLACES = [
    '<clipPath id="unused">{}</clipPath>',  # first: the template line found for <image> is its own
    "<metadata>{}</metadata>",
    "<title>standee{}</title>",
    "<desc>{}</desc>",
    '<g display="none">{}</g>',
    '<g style="display:none">{}</g>',
    "<defs>{}</defs>",
    '<metadata><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">{}</rdf:RDF></metadata>',
    "<g><title>{}</title></g>",
]


def test_image_hidden_where_nothing_is_drawn(kit, outside):
    image = '<image href="../../outside/secret.png" width="5" height="5"/>'
    inject(kit, "\n".join(place.format(image) for place in HIDING_PLACES))
    run = hostile_build(kit, "--lang", "en")
    leak = f"image '../../outside/secret.png' {IMAGE_HINT}"
    assert run.lines == sorted(
        [svg_problem(kit, 3 + n, leak) for n in range(len(HIDING_PLACES))]
        + [f"{HERD}:7:23: error: unsupported element <image> inside <clipPath> [svg]"]
    )


@pytest.mark.parametrize(
    "href", ["/etc/passwd", "../../outside/secret.png", "../mammoth-herd/../../outside/secret.png"]
)
def test_image_path_outside_the_pack(kit, outside, href):
    inject(kit, f'<image href="{href}" width="5" height="5"/>')
    assert hostile_build(kit, *EN).lines == [svg_problem(kit, 3, f"image '{href}' {IMAGE_HINT}")]


@pytest.mark.parametrize(
    "href", ["file:///etc/passwd", "http://example.com/a.png", "//example.com/a.png"]
)
def test_image_url(kit, href):
    inject(
        kit,
        '<image xmlns:xlink="http://www.w3.org/1999/xlink" '
        f'xlink:href="{href}" width="5" height="5"/>',
    )
    assert hostile_build(kit, *EN).lines == [
        svg_problem(
            kit, 3, f"image '{href}' is a URL; an image must be a file in the pack or a data: URI"
        )
    ]


def test_image_with_two_hrefs(kit):
    """A browser takes href, an old one xlink:href: both would need checking, so one is allowed."""
    inject(
        kit,
        '<image xmlns:xlink="http://www.w3.org/1999/xlink" '
        'href="/etc/passwd" xlink:href="a.png" width="5" height="5"/>',
    )
    assert (
        f"{HERD}:7:1: error: <image> has both href and xlink:href: give one [svg]"
        in hostile_build(kit, *EN).lines
    )


def test_image_linked_outside_from_inside_the_pack(kit, outside):
    (kit.root / M / "art.png").symlink_to(outside / "secret.png")
    inject(kit, '<image href="art.png" width="5" height="5"/>')
    assert hostile_build(kit, *EN).lines == [svg_problem(kit, 3, f"image 'art.png' {IMAGE_HINT}")]


def test_image_swapped_for_a_link_after_a_build(kit, outside):
    """The build cache knows the drawing and its image: a link put in the image's place is still
    refused."""
    png = io.BytesIO()
    Image.new("RGB", (4, 4), (200, 30, 30)).save(png, "PNG")
    (kit.root / M / "art.png").write_bytes(png.getvalue())
    inject(kit, '<image href="art.png" width="5" height="5"/>')
    assert kit.build(*EN).code == 0
    (kit.root / M / "art.png").unlink()
    (kit.root / M / "art.png").symlink_to(outside / "secret.png")
    before = files(kit.root)
    run = kit.build(*EN)
    assert (run.code, run.lines) == (1, [svg_problem(kit, 3, f"image 'art.png' {IMAGE_HINT}")])
    assert files(kit.root) == before and SECRET not in run.out + run.err


def test_image_folder_linked_outside(kit, outside):
    (kit.root / M / "art").symlink_to(outside)
    inject(kit, '<image href="art/secret.png" width="5" height="5"/>')
    assert hostile_build(kit, *EN).lines == [
        svg_problem(kit, 3, f"image 'art/secret.png' {IMAGE_HINT}")
    ]


def test_image_of_the_pack_still_draws_and_previews(kit):
    """The control: a real PNG inside the pack builds, and the preview links one copy of it."""
    buf = io.BytesIO()
    Image.new("RGB", (4, 4), (200, 30, 30)).save(buf, "PNG")
    (kit.root / M / "art.png").write_bytes(buf.getvalue())
    inject(kit, '<image href="art.png" width="5" height="5"/>')
    assert kit.build(*EN).code == 0
    page = (kit.root / "build/mammoth-herd/preview/en/herd/herd-front.svg").read_bytes()
    copies = list((kit.root / "build/mammoth-herd/preview/art").iterdir())
    assert [c.read_bytes() for c in copies] == [buf.getvalue()]
    assert f'href="../../art/{copies[0].name}"'.encode() in page


# ---------------------------------------------------------------- what a browser would load or run


ACTIVE_CONTENT = [  # (markup, column of the problem, message)
    ("<metadata><script>alert(1)</script></metadata>", 11, "unsupported element <script>"),
    (
        '<metadata><foreignObject width="5" height="5"/></metadata>',
        11,
        "unsupported element <foreignObject>",
    ),
    ("<desc><style>@import url(/etc/passwd);</style></desc>", 7, "unsupported element <style>"),
    (
        '<metadata><a xmlns:xlink="http://www.w3.org/1999/xlink" xlink:href="file:///etc/passwd">x</a></metadata>',
        11,
        "<a> links to 'file:///etc/passwd': only an <image> may name a file",
    ),
    (
        '<metadata><use href="/etc/passwd#x"/></metadata>',
        11,
        "<use> links to '/etc/passwd#x': only an <image> may name a file",
    ),
    (
        '<title><g style="fill:url(/etc/passwd)"/></title>',
        11,
        "unsupported attribute 'style' on <g>",
    ),
    ('<metadata><g onload="alert(1)"/></metadata>', 14, "unsupported attribute 'onload' on <g>"),
]


@pytest.mark.parametrize("markup, column, message", ACTIVE_CONTENT)
def test_active_content_wherever_it_sits(kit, markup, column, message):
    inject(kit, markup)
    assert hostile_build(kit, "--lang", "en").lines == [
        f"{HERD}:7:{column}: error: {message} [svg]"
    ]


def test_xml_stylesheet_instruction(kit):
    inject(kit, '<?xml-stylesheet href="/etc/passwd"?>')
    assert hostile_build(kit, *EN).lines == [
        svg_problem(kit, 3, "processing instruction <?xml-stylesheet?> is not supported")
    ]


def test_external_entity_is_refused_and_never_read(kit, outside):
    (kit.root / HERD).write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<!DOCTYPE svg [<!ENTITY stolen SYSTEM "file://{outside}/secret.txt">]>\n'
        '<svg xmlns="http://www.w3.org/2000/svg" '
        'width="46mm" height="106mm" viewBox="-3 -3 46 106">\n'
        '<text x="1" y="5">&stolen;</text></svg>\n',
        encoding="utf-8",
    )
    assert hostile_build(kit, *EN).lines == [
        svg_problem(
            kit, 2, "<!DOCTYPE> and <!ENTITY> are not supported (no DTDs or entities in a face)"
        ),
        svg_problem(kit, 4, "unsupported entity reference &stolen;"),
    ]


def test_entity_bomb_is_refused_at_once():
    bomb = (
        '<!DOCTYPE svg [<!ENTITY a "aaaaaaaaaa">'
        + "".join(f'<!ENTITY {chr(98 + i)} "{("&" + chr(97 + i) + ";") * 10}">' for i in range(8))
        + "]>"
    )
    source = (
        bomb + '\n<svg xmlns="http://www.w3.org/2000/svg" width="9mm" '
        'height="9mm" viewBox="0 0 9 9"><text>&i;</text></svg>'
    )
    with pytest.raises(SvgError) as err:
        compile_svg(source)
    assert err.value.problems[0] == (
        1,
        "<!DOCTYPE> and <!ENTITY> are not supported (no DTDs or entities in a face)",
    )


def test_preview_copies_only_files_of_the_pack(kit, outside):
    (kit.root / M / "art.png").symlink_to(outside / "secret.png")
    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg"><image '
        'href="art.png"/><image href="../../outside/secret.png"/>'
        '<metadata><image href="/etc/passwd"/></metadata></svg>'
    )
    art = kit.root / "art-copies"
    page = preview._linked_art(svg, kit.root / M, art)
    assert not art.exists() and b"../../art/" not in page and SECRET.encode() not in page


# ---------------------------------------------------------------- messages quote no file at length


def test_yaml_message_quotes_one_line_at_most(kit):
    (kit.root / M / "notes.yaml").write_text(
        f"first line of notes\n{SECRET}\n{SECRET}\n", encoding="utf-8"
    )
    assert hostile_build(kit).lines == [
        f"{M}/notes.yaml:1:1: error: a component file must "
        "map group names to groups (got text) [schema]"
    ]


def test_value_spanning_lines_is_quoted_to_its_first_line(kit):
    kit.edit(
        f"{M}/game.yaml",
        "players: {min: 2, max: 4}",
        f"players:\n  max: 4\n  min: |\n    2 players\n    {SECRET}",
    )
    at = place(kit, f"{M}/game.yaml", "|\n    2 players")
    assert hostile_build(kit).lines == [
        f"{at}: error: 'min' must be a whole number (got '2 players…') [schema]"
    ]


def test_yaml_that_is_not_utf8(kit):
    (kit.root / M / "binary.yaml").write_bytes(b"herd2:\n  kind: \xff" + SECRET.encode())
    assert hostile_build(kit).lines == [
        f"{M}/binary.yaml:1:1: error: cannot read file: it is not UTF-8 text (byte 15) [schema]"
    ]
