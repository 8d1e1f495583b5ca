"""Helpers shared by the annotation browser tests: the five Indic scripts with real sentences,
the evidence that a script's text is drawn with the served Noto face, keyboard submits that
wait for the resulting page, and layout checks."""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path

from .conftest import ARTIFACTS

# language code -> (served family, file under /static/fonts/, a context, a question).
SCRIPTS = {
    "hi": (
        "Noto Sans Devanagari",
        "NotoSansDevanagari-Regular.ttf",
        "दादा और पोता बस स्टॉप पर इंतज़ार कर रहे थे।",
        "टिकट कौन भूल गया?",
    ),
    "bn": (
        "Noto Sans Bengali",
        "NotoSansBengali-Regular.ttf",
        "দাদু আর নাতি বাস স্টপে অপেক্ষা করছিলেন।",
        "কে টিকিট ভুলে গিয়েছিল?",
    ),
    "or": (
        "Noto Sans Oriya",
        "NotoSansOriya-Regular.ttf",
        "ଜେଜେବାପା ଓ ନାତି ବସ୍ ଷ୍ଟପରେ ଅପେକ୍ଷା କରୁଥିଲେ।",
        "କିଏ ଟିକେଟ୍ ଭୁଲିଗଲା?",
    ),
    "ta": (
        "Noto Sans Tamil",
        "NotoSansTamil-Regular.ttf",
        "தாத்தாவும் பேரனும் பேருந்து நிறுத்தத்தில் காத்திருந்தனர்.",
        "டிக்கெட்டை மறந்தது யார்?",
    ),
    "te": (
        "Noto Sans Telugu",
        "NotoSansTelugu-Regular.ttf",
        "తాతయ్య మరియు మనవడు బస్ స్టాప్ వద్ద ఎదురు చూస్తున్నారు.",
        "టికెట్ ఎవరు మర్చిపోయారు?",
    ),
}


def shot(page, name: str, *, full_page: bool = False) -> Path:
    """Save a screenshot of the screen; first check that no raw template syntax leaked into
    what it shows (a multi-line {# #} comment, say: Django renders it as text)."""
    text = page.text_content("body")
    assert "{%" not in text and "{#" not in text, f"{name}: template syntax on the page"
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=full_page)
    return path


@contextmanager
def navigates(page):
    """Wait for the page the block's key press or click leads to (a POST and its redirect, or a
    link), however long the server takes: no sleeping, no guessing."""
    with page.expect_navigation(wait_until="load"):
        yield


def rendering_fonts(page, selector: str) -> list[dict]:
    """The fonts Chromium actually used to draw the text of `selector` (DevTools
    CSS.getPlatformFontsForNode): family, whether it is a web font (isCustomFont, i.e. one of
    our @font-face files, not a system font) and how many glyphs it drew."""
    cdp = page.context.new_cdp_session(page)
    try:
        cdp.send("DOM.enable")
        cdp.send("CSS.enable")
        root = cdp.send("DOM.getDocument", {"depth": 0})["root"]["nodeId"]
        node = cdp.send("DOM.querySelector", {"nodeId": root, "selector": selector})["nodeId"]
        assert node, f"{selector} is not on the page"
        return cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]
    finally:
        cdp.detach()


FONT_STATE_JS = """async ([family, file, text]) => {
    await document.fonts.ready;
    await document.fonts.load(`40px "${family}"`, text);
    const faces = [...document.fonts]
        .filter(f => f.family.replace(/"/g, "") === family)
        .map(f => f.status);
    const fetched = performance.getEntriesByType("resource")
        .map(e => new URL(e.name).pathname)
        .filter(p => p.startsWith("/static/fonts/"));
    // Tofu check: the same code points, each replaced by one the served faces do not cover,
    // is what a string of .notdef boxes measures; real glyphs (shaped clusters, vowel signs
    // that take no advance) measure differently.
    const ctx = document.createElement("canvas").getContext("2d");
    ctx.font = `40px "${family}"`;
    const width = ctx.measureText(text).width;
    const boxes = ctx.measureText([...text].map(c => c === " " ? c : "\\uE000").join("")).width;
    return {
        faces,
        fetched,
        check: document.fonts.check(`40px "${family}"`, text),
        width,
        boxes,
    };
}"""


def assert_served_font(page, selector: str, language: str) -> dict:
    """The element carries lang=<language>, its text is drawn only with served web fonts, the
    script's Noto face among them (from /static/fonts/, status "loaded"), and not as tofu."""
    family, file, _, _ = SCRIPTS[language]
    element = page.locator(selector)
    assert element.get_attribute("lang") == language, selector
    text = element.text_content().strip()
    state = page.evaluate(FONT_STATE_JS, [family, file, text])
    assert "loaded" in state["faces"], state
    assert f"/static/fonts/{file}" in state["fetched"], state
    assert state["check"], state
    assert abs(state["width"] - state["boxes"]) > 0.05 * state["boxes"], state
    fonts = rendering_fonts(page, selector)
    by_family = {f["familyName"]: f for f in fonts}
    assert family in by_family, fonts
    assert by_family[family]["isCustomFont"], fonts
    # Every glyph came from a served face: no system font filled in a missing character, and
    # no other script's face drew a shared character (the danda) in the middle of the text.
    assert all(f["isCustomFont"] for f in fonts), fonts
    assert set(by_family) <= {family, "Noto Sans"}, fonts
    # The script face drew the script: more glyphs than Noto Sans (spaces, punctuation).
    assert by_family[family]["glyphCount"] > by_family.get("Noto Sans", {}).get("glyphCount", 0)
    return {"state": state, "fonts": fonts}


def assert_fits(page) -> None:
    """No horizontal scrolling: the page is no wider than the viewport."""
    widths = page.evaluate(
        "() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]"
    )
    assert widths[0] <= widths[1], f"page is {widths[0]}px wide in a {widths[1]}px viewport"


def assert_in_viewport(page, selector: str) -> None:
    """The element is on screen as the page is (without scrolling) and not covered."""
    box = page.locator(selector).bounding_box()
    viewport = page.viewport_size
    assert box is not None, f"{selector} is not displayed"
    assert box["x"] >= 0 and box["x"] + box["width"] <= viewport["width"], (selector, box)
    assert box["y"] >= 0 and box["y"] + box["height"] <= viewport["height"], (selector, box)
    topmost = page.evaluate(
        """(selector) => {
            const el = document.querySelector(selector);
            const r = el.getBoundingClientRect();
            const hit = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
            return el === hit || el.contains(hit);
        }""",
        selector,
    )
    assert topmost, f"{selector} is covered by another element"


def assert_text_boxes_show_everything(page) -> None:
    """Every text box on the page shows all of its text (a long Indic sentence is not cut off
    at the bottom of a fixed-height box)."""
    clipped = page.evaluate(
        """() => [...document.querySelectorAll("textarea")]
            .filter(t => t.offsetParent !== null && t.scrollHeight > t.clientHeight + 1)
            .map(t => t.name)"""
    )
    assert clipped == [], f"text cut off in {clipped}"


def wait_job_page(page) -> str:
    """Wait until the job page the browser shows has finished; its final status."""
    page.wait_for_function(
        "() => ['succeeded', 'failed'].includes("
        "document.getElementById('job-status').textContent.trim())",
        timeout=90_000,
    )
    return page.text_content("#job-status").strip()
