"""Bold Indic text is drawn by the served Bold face of its script (not the browser's synthetic
bold over the Regular face, not a system font)."""

from __future__ import annotations

import pytest

from .support import SCRIPTS, rendering_fonts

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]


@pytest.mark.parametrize("language", sorted(SCRIPTS))
def test_bold_text_uses_the_served_bold_face(live_server, page, language):
    family, regular, context, _ = SCRIPTS[language]
    page.goto(f"{live_server.url}/accounts/login/")  # any page: css/fonts.css declares the faces
    page.evaluate(
        """([language, text]) => {
            const bold = document.createElement("strong");
            bold.id = "bold-sample";
            bold.lang = language;
            bold.textContent = text;
            document.querySelector("main").append(bold);
            return document.fonts.ready;
        }""",
        [language, context],
    )
    page.wait_for_function(
        """(family) => [...document.fonts].some(face =>
            face.family.replace(/"/g, "") === family
            && face.weight === "700" && face.status === "loaded")""",
        arg=family,
    )
    fetched = page.evaluate(
        """() => performance.getEntriesByType("resource")
            .map(e => new URL(e.name).pathname).filter(p => p.startsWith("/static/fonts/"))"""
    )
    assert f"/static/fonts/{regular.replace('-Regular', '-Bold')}" in fetched, fetched
    fonts = {f["familyName"]: f for f in rendering_fonts(page, "#bold-sample")}
    assert fonts[family]["isCustomFont"], fonts
    assert fonts[family]["postScriptName"].endswith("-Bold"), fonts
