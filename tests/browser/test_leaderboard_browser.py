"""The evaluation leaderboard in a real browser: Hindi (Devanagari) and Tamil language rows drawn
with the served Noto faces, sorting by clicking a header (undefined figures last both ways), a
filter, the CSV link (exactly the rows shown), two models' heat maps side by side (next to each
other at 1366 px, stacked at 390 px), and "evaluate every model" as a researcher (one run per
eligible model, the others listed with the reason; a refusal common to all shown on the form).
An annotator reads the board without the form. Screenshots at 1366 and 390 px as researcher and
annotator, and of the empty board."""

from __future__ import annotations

import csv
import io

import pytest

from apps.evaluation.models import EvaluationRun, ModelEntry, ModelKind
from tests.evaluation.bbq_data import bbq_release
from tests.evaluation.test_leaderboard import complete_run, release_of, results, scores

from .conftest import ARTIFACTS
from .support import assert_fits, assert_served_font, navigates, shot

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

CATEGORIES = ("Caste", "Gender", "Religion", "Region")


def _results(hi: dict, ta: dict, overall: dict) -> dict:
    return results(scores(n_amb=24, n_dis=24, **overall), {"hi": hi, "ta": ta}, CATEGORIES)


def _board(tiny_gpt2_dir) -> dict:
    """Four models on one release in BharatBBQ's settings; Tamil's ambiguous figures of one run
    are undefined (no ambiguous Tamil items)."""
    release = release_of(name="bharatbbq-mini")
    demo = ModelEntry.objects.create(
        name="tiny-gpt2 (random weights, demo)",
        kind=ModelKind.CAUSAL_LM,
        path=str(tiny_gpt2_dir),
        demo=True,
    )
    full = {"acc_d": 0.61, "bs_d": 0.04, "sbs_a": 0.3, "sbs_d": 0.35, "s_dis": 0.05}
    full |= {"s_amb": 0.02, "diff_bias_a": 0.03, "diff_bias_d": 0.06}
    runs = {}
    runs["demo"] = complete_run(
        release=release,
        model=demo,
        model_label=demo.name,
        results=_results(
            scores(n_amb=12, n_dis=12, acc_a=0.34, bs_a=0.01, **full),
            scores(n_amb=12, n_dis=12, acc_a=0.31, bs_a=-0.02, **full),
            {"acc_a": 0.325, "bs_a": -0.005, **full},
        ),
    )
    runs["llama"] = complete_run(
        release=release,
        model_label="llama-3.2-1b",
        results=_results(
            scores(n_amb=12, n_dis=12, acc_a=0.72, bs_a=0.18, **full),
            scores(n_amb=0, n_dis=12, **{**full, "sbs_a": None, "s_amb": None}),
            {"acc_a": 0.72, "bs_a": 0.18, **full},
        ),
    )
    runs["llama2"] = complete_run(
        release=release,
        model_label="llama-3.2-1b",
        shots=2,
        results=_results(
            scores(n_amb=12, n_dis=12, acc_a=0.81, bs_a=0.09, **full),
            scores(n_amb=12, n_dis=12, acc_a=0.66, bs_a=0.12, **full),
            {"acc_a": 0.735, "bs_a": 0.105, **full},
        ),
    )
    runs["sarvam"] = complete_run(
        release=release,
        model_label="sarvam-1",
        shots=2,
        instruction_language="target",
        results=_results(
            scores(n_amb=12, n_dis=12, acc_a=0.55, bs_a=-0.21, **full),
            scores(n_amb=12, n_dis=12, acc_a=0.49, bs_a=-0.3, **full),
            {"acc_a": 0.52, "bs_a": -0.255, **full},
        ),
    )
    return {"release": release, "demo": demo, "runs": runs}


def _column(page, key: str) -> list[str]:
    return page.locator(f"#leaderboard-table tbody td[data-metric={key}]").all_text_contents()


def test_researcher_sorts_filters_downloads_compares_and_evaluates_every_model(
    open_as, demo_users, live_server, tiny_gpt2_dir, tmp_path
):
    base = f"{live_server.url}/evaluation/leaderboard/"
    # Empty board first: what a researcher sees before any run.
    page = open_as("rekha", width=1366, height=900)
    page.goto(base)
    assert "No complete BBQ-style runs yet." in page.text_content("#board-empty")
    assert page.locator("#csv-link").count() == 0
    assert_fits(page)
    shot(page, "leaderboard_empty_researcher_1366", full_page=True)

    board = _board(tiny_gpt2_dir)
    with navigates(page):
        page.click(".mainnav a:text-is('Evaluation')")
    with navigates(page):
        page.click("#leaderboard-link")  # the Evaluation pages' menu
    page.wait_for_selector("#leaderboard-table")
    assert page.text_content("#row-count") == "12 rows"

    # Indic rows: Hindi in Devanagari, Tamil in Tamil, each in its served Noto face.
    hindi = "#leaderboard-table tbody tr[data-language=hi] .autonym"
    tamil = "#leaderboard-table tbody tr[data-language=ta] .autonym"
    assert page.locator(hindi).first.text_content() == "हिन्दी"
    assert_served_font(
        page, f"tr[data-run='{board['runs']['llama'].pk}'][data-language=hi] .autonym", "hi"
    )
    assert page.locator(tamil).first.text_content() == "தமிழ்"
    assert_served_font(
        page, f"tr[data-run='{board['runs']['llama'].pk}'][data-language=ta] .autonym", "ta"
    )

    # Sort by clicking Acc_A: ascending, undefined last; again: descending, undefined still last.
    with navigates(page):
        page.click("th[data-column=acc_a] a")
    assert page.get_attribute("th[data-column=acc_a]", "aria-sort") == "ascending"
    values = _column(page, "acc_a")
    numbers = [float(v) for v in values[:-1]]
    assert numbers == sorted(numbers) and values[-1].startswith("undefined")
    with navigates(page):
        page.click("th[data-column=acc_a] a")
    assert page.get_attribute("th[data-column=acc_a]", "aria-sort") == "descending"
    values = _column(page, "acc_a")
    numbers = [float(v) for v in values[:-1]]
    assert numbers == sorted(numbers, reverse=True) and values[-1].startswith("undefined")
    assert values[0] == "0.810"
    # The undefined cell's reason is listed under the table, reached from its note.
    note = page.locator("#leaderboard-table td[data-metric=acc_a].undefined sup a")
    reason_id = note.get_attribute("href").lstrip("#")
    assert "no ambiguous items" in page.text_content(f"#{reason_id}")

    # Filter: Tamil rows only, the order kept.
    page.select_option("#filter-language", "ta")
    with navigates(page):
        page.click("#apply-filters")
    languages = page.locator("#leaderboard-table tbody tr").evaluate_all(
        "rows => rows.map(r => r.dataset.language)"
    )
    assert languages == ["ta"] * 4
    assert "ordering=-acc_a" in page.url and "language=ta" in page.url
    tamil_acc_a = _column(page, "acc_a")
    assert tamil_acc_a[:3] == ["0.660", "0.490", "0.310"]
    assert tamil_acc_a[3].startswith("undefined")

    # The CSV link: exactly the rows shown, in their order, undefined with its reason.
    href = page.get_attribute("#csv-link", "href")
    download = page.request.get(f"{live_server.url}{href}")
    assert download.ok and download.headers["content-type"].startswith("text/csv")
    parsed = list(csv.DictReader(io.StringIO(download.text())))
    shown = page.locator("#leaderboard-table tbody tr").evaluate_all(
        "rows => rows.map(r => Number(r.dataset.run))"
    )
    assert [int(row["run"]) for row in parsed] == shown
    assert parsed[-1]["acc_a"] == "" and "no ambiguous items" in parsed[-1]["acc_a_undefined"]
    assert_fits(page)
    shot(page, "leaderboard_filtered_researcher_1366", full_page=True)

    # Two models side by side: BS_A of the demo model and of llama, next to each other.
    demo, llama = board["runs"]["demo"], board["runs"]["llama"]
    with navigates(page):
        page.click("#clear-filters")
    page.select_option("#heat-run-a", str(demo.pk))
    page.select_option("#heat-run-b", str(llama.pk))
    page.select_option("#heat-metric", "bs_a")
    with navigates(page):
        page.click("#show-heat-maps")
    panels = page.locator("#heat-maps .panel")
    assert panels.count() == 2
    assert [panels.nth(i).get_attribute("data-run") for i in range(2)] == [
        str(demo.pk),
        str(llama.pk),
    ]
    assert page.locator("#heat-maps figure[data-metric=bs_a]").count() == 2
    first, second = (panels.nth(i).bounding_box() for i in range(2))
    assert second["x"] >= first["x"] + first["width"] - 1 and abs(second["y"] - first["y"]) < 2
    # 4 categories x 2 languages per map; llama's Tamil BS_A is undefined (grey, "—").
    assert panels.nth(1).locator("rect").count() == 8
    assert "—" in panels.nth(1).locator("text.cell").all_text_contents()
    assert_fits(page)
    page.locator("#side-by-side").screenshot(path=str(ARTIFACTS / "leaderboard_heat_maps_1366.png"))
    shot(page, "leaderboard_researcher_1366", full_page=True)

    # The same page on a phone: the table scrolls inside its card, the maps stack.
    phone = open_as("rekha", width=390, height=844)
    phone.goto(page.url)
    assert_fits(phone)
    scroller = phone.locator(".board-scroll")
    assert scroller.evaluate("el => el.scrollWidth > el.clientWidth")
    # Scrolled to its last figures, the model column stays in view beside them.
    scroller.evaluate("el => { el.scrollLeft = el.scrollWidth; }")
    model_cell = phone.locator("#leaderboard-table tbody th.model").first.bounding_box()
    box = scroller.bounding_box()
    assert abs(model_cell["x"] - box["x"]) < 3
    assert phone.locator("#leaderboard-table td[data-metric=diff_bias_d]").first.is_visible()
    scroller.screenshot(path=str(ARTIFACTS / "leaderboard_table_scrolled_390.png"))
    phone_panels = phone.locator("#heat-maps .panel")
    top, bottom = (phone_panels.nth(i).bounding_box() for i in range(2))
    assert bottom["y"] >= top["y"] + top["height"] - 1
    shot(phone, "leaderboard_researcher_390", full_page=True)

    # Evaluate every model on a release: one run for the model that can be scored, the masked
    # LM and the model whose weights were never copied listed with the reason.
    ModelEntry.objects.create(name="tiny-bert", kind=ModelKind.MASKED_LM, path=str(tiny_gpt2_dir))
    ModelEntry.objects.create(
        name="llama-3.2-1b", kind=ModelKind.CAUSAL_LM, path=str(tmp_path / "llama-3.2-1b")
    )
    release = bbq_release()
    only_ambiguous = bbq_release(name="ambiguous-only", conditions=("ambig",))
    page.goto(base)
    page.select_option("#id_release", str(only_ambiguous.pk))
    with navigates(page):
        page.click("#evaluate-all-button")
    error = page.text_content("#evaluate-all-error")
    assert "nothing was started" in error and "no disambiguated contexts" in error
    assert not EvaluationRun.objects.filter(release=only_ambiguous).exists()
    page.locator("#evaluate-all").scroll_into_view_if_needed()
    assert_fits(page)
    shot(page, "leaderboard_evaluate_all_refused_1366")
    page.set_viewport_size({"width": 390, "height": 844})
    page.locator("#evaluate-all-error").scroll_into_view_if_needed()
    assert_fits(page)
    shot(page, "leaderboard_evaluate_all_refused_390")
    page.set_viewport_size({"width": 1366, "height": 900})

    page.select_option("#id_release", str(release.pk))
    page.select_option("#id_shots", "2")
    page.select_option("#id_instruction_language", "target")
    with navigates(page):
        page.click("#evaluate-all-button")
    run = EvaluationRun.objects.get(release=release)
    assert (run.model_id, run.shots, run.instruction_language) == (board["demo"].pk, 2, "target")
    assert page.locator("#created li").count() == 1
    assert page.get_attribute(f"#created li[data-run='{run.pk}'] a", "href") == (
        f"/evaluation/runs/{run.pk}/"
    )
    skipped = dict(
        zip(
            page.locator("#skipped li b").all_text_contents(),
            page.locator("#skipped li .reason").all_text_contents(),
            strict=True,
        )
    )
    assert set(skipped) == {"llama-3.2-1b", "tiny-bert"}
    assert str(tmp_path / "llama-3.2-1b") in skipped["llama-3.2-1b"]
    assert "masked language model" in skipped["tiny-bert"]
    assert_fits(page)
    shot(page, "leaderboard_evaluate_all_report_1366", full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    assert_fits(page)
    shot(page, "leaderboard_evaluate_all_report_390", full_page=True)
    phone.goto(page.url.replace("evaluate-all/", ""))
    phone.click("#eligibility summary")
    phone.locator("#eligibility").scroll_into_view_if_needed()
    assert "tiny-bert" in phone.text_content("#eligibility")
    assert_fits(phone)
    shot(phone, "leaderboard_evaluate_all_form_390")
    from tests.workers import purge_test_broker

    purge_test_broker()  # the queued jobs' messages: no worker takes them in this test


def test_annotator_reads_the_board_without_the_evaluate_form(
    open_as, demo_users, live_server, tiny_gpt2_dir
):
    board = _board(tiny_gpt2_dir)
    demo, sarvam = board["runs"]["demo"], board["runs"]["sarvam"]
    query = f"?language=hi&ordering=-bs_a&runs={demo.pk},{sarvam.pk}&metric=acc_a"
    for width, height in ((1366, 900), (1024, 768), (390, 844)):
        page = open_as("anu", width=width, height=height)
        page.goto(f"{live_server.url}/evaluation/leaderboard/{query}")
        assert page.locator("#evaluate-all").count() == 0
        assert page.locator("main form[method=post]").count() == 0
        assert _column(page, "bs_a") == ["0.180", "0.090", "0.010", "-0.210"]
        assert page.locator("#demo-note").is_visible()
        assert page.locator("#heat-maps figure[data-metric=acc_a]").count() == 2
        assert_served_font(page, f"tr[data-run='{sarvam.pk}'][data-language=hi] .autonym", "hi")
        assert_fits(page)
        shot(page, f"leaderboard_annotator_{width}", full_page=True)
