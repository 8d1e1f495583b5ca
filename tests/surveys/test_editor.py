"""The researcher's survey editor: pages, who may use them, versioning through the editor,
opening refused with the gaps listed, and Indic text round-tripping exactly (NFC)."""

from __future__ import annotations

import copy
import unicodedata

import pytest
from django.test import Client
from django.utils import timezone
from django.utils.html import escape

from apps.catalog.models import Dataset
from apps.surveys.models import Answer, Respondent, Survey, SurveyVersion
from apps.surveys.questionnaire import content_problems, default_content
from apps.surveys.services.surveys import survey_content_save, survey_create
from apps.surveys.strings import DEFAULT_STRINGS, STRING_KEYS

from .conftest import complete_content

pytestmark = pytest.mark.django_db


def client_for(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def rc(researcher) -> Client:
    return client_for(researcher)


@pytest.fixture
def draft(dataset, researcher) -> Survey:
    """A draft in Hindi and Spanish with every text and label blank, as a survey in languages
    Kasauti ships no texts for starts (the shipped Hindi and Spanish defaults emptied)."""
    content = default_content(languages=["hi", "es"])
    content["strings"] = {"hi": {}, "es": {}}
    for question in content["demographics"]:
        for item in [question, *question["options"]]:
            item["labels"] = {"hi": "", "es": ""}
    return survey_create(
        dataset=dataset,
        slug="rudhiyan",
        languages=["hi", "es"],
        content=content,
        created_by=researcher,
    )


def answer_for(survey: Survey, version: SurveyVersion, text: str = "x log aalsi hote hain"):
    respondent = Respondent.objects.create(
        survey=survey, token_hash=f"t{Respondent.objects.count()}"
    )
    return Answer.objects.create(
        survey=survey,
        version=version,
        respondent=respondent,
        language="hi",
        category_key="religion",
        text=text,
        submitted_at=timezone.now(),
    )


def strings_post(texts: dict[str, str]) -> dict[str, str]:
    return {key: texts.get(key, "") for key in STRING_KEYS}


# --- who may use the editor ----------------------------------------------------------------


def editor_gets(slug: str) -> list[str]:
    return [
        "/surveys/",
        "/surveys/new/",
        f"/surveys/{slug}/",
        f"/surveys/{slug}/edit/texts/hi/",
        f"/surveys/{slug}/edit/questions/",
        f"/surveys/{slug}/edit/demographics/",
        f"/surveys/{slug}/versions/1/",
    ]


def editor_posts(slug: str) -> list[str]:
    return [
        f"/surveys/{slug}/open/",
        f"/surveys/{slug}/close/",
        f"/surveys/{slug}/delete/",
        f"/surveys/{slug}/settings/",
        f"/surveys/{slug}/languages/",
        f"/surveys/{slug}/inclusion/",
        f"/surveys/{slug}/edit/texts/hi/",
        f"/surveys/{slug}/edit/questions/",
        f"/surveys/{slug}/edit/demographics/",
    ]


def test_researcher_reaches_every_editor_page(rc, draft):
    for url in editor_gets(draft.slug):
        response = rc.get(url)
        assert response.status_code == 200, url


def test_anonymous_is_sent_to_sign_in(draft):
    client = Client()
    for url in editor_gets(draft.slug) + editor_posts(draft.slug):
        response = client.post(url) if url in editor_posts(draft.slug) else client.get(url)
        assert response.status_code == 302 and "/accounts/login/" in response["Location"], url


def test_annotator_is_refused_and_nothing_changes(annotator, draft):
    client = client_for(annotator)
    before = copy.deepcopy(draft.current_version.content)
    for url in editor_gets(draft.slug):
        assert client.get(url).status_code == 403, url
    for url in editor_posts(draft.slug):
        assert client.post(url, {"languages": "ta", "title": "x"}).status_code == 403, url
    draft.refresh_from_db()
    assert draft.status == Survey.Status.DRAFT
    assert draft.current_version.content == before
    assert client.post("/surveys/new/", {"slug": "mine", "languages": ["hi"]}).status_code == 403
    assert not Survey.objects.filter(slug="mine").exists()


def test_nav_shows_surveys_to_researchers_only(rc, annotator):
    assert 'id="surveys-link"' in rc.get("/").content.decode()
    assert 'id="surveys-link"' not in client_for(annotator).get("/").content.decode()


# --- the list and a new survey -------------------------------------------------------------


def test_list_shows_status_answers_and_link(rc, survey, draft):
    answer_for(survey, survey.current_version)
    answer_for(survey, survey.current_version)
    html = rc.get("/surveys/").content.decode()
    row = html.split('id="survey-estereotipos"')[1].split("</tr>")[0]
    assert 'data-status="open"' in row and 'data-answers="2"' in row
    assert "/s/estereotipos/" in row and 'href="/surveys/estereotipos/"' in row
    draft_row = html.split('id="survey-rudhiyan"')[1].split("</tr>")[0]
    assert 'data-status="draft"' in draft_row and 'data-answers="0"' in draft_row


def test_create_a_survey_in_hindi_and_tamil(rc, dataset, researcher):
    response = rc.post(
        "/surveys/new/",
        {"dataset": dataset.pk, "slug": "rudhiyan", "languages": ["hi", "ta"]},
    )
    assert response.status_code == 302 and response["Location"] == "/surveys/rudhiyan/"
    survey = Survey.objects.get(slug="rudhiyan")
    assert survey.status == Survey.Status.DRAFT and survey.created_by == researcher
    content = survey.current_version.content
    # LANGUAGE_NAMES order is the checkbox order: Hindi before Tamil.
    assert content["languages"] == ["hi", "ta"]
    # Kasauti ships Hindi texts, not Tamil ones: Tamil starts empty, never in English.
    assert content["strings"] == {"hi": DEFAULT_STRINGS["hi"], "ta": {}}
    page = rc.get("/surveys/rudhiyan/").content.decode()
    assert "ta: strings.title is empty" in page and "ta: strings.submit is empty" in page
    assert "hi: strings." not in page
    assert 'href="/s/rudhiyan/"' in page


def test_create_with_a_typed_language_code_keeps_the_order(rc, dataset):
    response = rc.post(
        "/surveys/new/",
        {"dataset": dataset.pk, "slug": "manipur", "other_languages": "mni, en"},
    )
    assert response.status_code == 302
    content = Survey.objects.get(slug="manipur").current_version.content
    assert content["languages"] == ["mni", "en"]
    assert content["strings"]["en"] == DEFAULT_STRINGS["en"]


@pytest.mark.parametrize(
    ("post", "message"),
    [
        (
            {"slug": "ok-slug", "other_languages": "Hindi"},
            "&#x27;Hindi&#x27; is not a language code",
        ),
        ({"slug": "ok-slug"}, "choose at least one language"),
        ({"slug": "ok-slug", "languages": ["hi"], "other_languages": "hi"}, "hi listed twice"),
        ({"slug": "new", "languages": ["hi"]}, "used by the editor"),
        ({"slug": "estereotipos", "languages": ["hi"]}, "already exists"),
        ({"slug": "two words", "languages": ["hi"]}, "Enter a valid"),
    ],
)
def test_create_refuses_bad_input_and_says_why(rc, dataset, survey, post, message):
    before = Survey.objects.count()
    response = rc.post("/surveys/new/", {"dataset": dataset.pk, **post})
    assert response.status_code == 400
    assert message in response.content.decode()
    assert Survey.objects.count() == before


# --- opening -----------------------------------------------------------------------------


def test_open_is_refused_with_the_gaps_listed(rc, draft):
    response = rc.post(f"/surveys/{draft.slug}/open/")
    assert response.status_code == 409
    html = response.content.decode()
    assert 'id="open-refused"' in html
    problems = content_problems(draft.current_version.content)
    assert len(problems) > len(STRING_KEYS)  # every string, in two languages, and labels
    for problem in problems:
        assert problem in html, problem
    # Grouped by the page that fills them in, each linked.
    assert 'href="/surveys/rudhiyan/edit/texts/hi/"' in html
    assert 'href="/surveys/rudhiyan/edit/demographics/"' in html
    draft.refresh_from_db()
    assert draft.status == Survey.Status.DRAFT


def test_open_once_complete_then_close(rc, draft, researcher):
    survey_content_save(survey=draft, content=complete_content(["hi", "es"]), saved_by=researcher)
    page = rc.get(f"/surveys/{draft.slug}/").content.decode()
    assert 'id="gap-count">complete' in page
    assert rc.post(f"/surveys/{draft.slug}/open/").status_code == 302
    draft.refresh_from_db()
    assert draft.status == Survey.Status.OPEN
    assert rc.post(f"/surveys/{draft.slug}/close/").status_code == 302
    draft.refresh_from_db()
    assert draft.status == Survey.Status.CLOSED


def test_a_get_on_open_is_405_with_its_purpose(rc, draft):
    response = rc.get(f"/surveys/{draft.slug}/open/")
    assert response.status_code == 405
    assert "opens the survey" in response.content.decode()


# --- texts per language, Unicode -----------------------------------------------------------

# As a keyboard or a copy-paste may give them, not in NFC: the editor must store the NFC form,
# exactly. Hindi: the precomposed nukta letters U+095C (ढ़) and U+095B (ज़), which NFC
# decomposes (they are composition exclusions); Odia and Tamil: two-part vowel signs typed as
# their parts (NFD), which NFC composes.
INDIC = {
    "hi": "समाज में रू\u095c\u093fयाँ — \u095bरूर बताइए",
    "or": unicodedata.normalize("NFD", "ସମାଜରେ ରୂଢ଼ିବାଦ ଓ ଗୌରବ"),
    "ta": unicodedata.normalize("NFD", "சமூகத்தில் கொள்கைகள் ஔவை"),
}


@pytest.mark.parametrize("lang", sorted(INDIC))
def test_indic_texts_round_trip_exactly_in_nfc(rc, dataset, lang):
    survey = survey_create(dataset=dataset, slug=f"rt-{lang}", languages=[lang])
    typed = INDIC[lang]
    composed = unicodedata.normalize("NFC", typed)
    assert typed != composed  # the test sends something to normalise
    texts = {key: f"{composed} · {key}" for key in STRING_KEYS}
    texts["title"] = "  " + typed + "  "
    texts["too_long"] = f"{composed} {{limit}}"
    response = rc.post(f"/surveys/rt-{lang}/edit/texts/{lang}/", strings_post(texts))
    assert response.status_code == 302, response.content.decode()[:2000]
    stored = SurveyVersion.objects.get(survey=survey).content["strings"][lang]
    assert stored["title"] == composed
    assert stored["title"].encode("utf-8") == composed.encode("utf-8")
    assert stored["too_long"] == f"{composed} {{limit}}"
    page = rc.get(f"/surveys/rt-{lang}/edit/texts/{lang}/").content.decode()
    assert f'lang="{lang}" dir="auto" value="{composed}"' in page
    # Shown on the survey's page as its title, marked with its language for the Noto face.
    assert (
        f'<span lang="{lang}">{composed}</span>' in rc.get(f"/surveys/rt-{lang}/").content.decode()
    )


def test_a_string_losing_its_placeholder_is_refused(rc, draft):
    texts = {key: "x" for key in STRING_KEYS}
    texts["too_long"] = "बहुत लंबा है"
    response = rc.post(f"/surveys/{draft.slug}/edit/texts/hi/", strings_post(texts))
    assert response.status_code == 400
    assert "hi: too_long: must contain {limit} and no other {…}" in response.content.decode()
    assert SurveyVersion.objects.get(survey=draft).content["strings"]["hi"] == {}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("अधिकतम {limit", "hi: too_long: unbalanced { or }"),
        ("अधिकतम {limit} {extra}", "hi: too_long: must contain {limit} and no other {…}"),
        ("अधिकतम सीमा", "hi: too_long: must contain {limit}"),
    ],
)
def test_the_placeholder_of_too_long_is_checked(rc, draft, text, message):
    texts = {k: "x" for k in STRING_KEYS}
    texts["too_long"] = text
    response = rc.post(f"/surveys/{draft.slug}/edit/texts/hi/", strings_post(texts))
    assert response.status_code == 400
    assert escape(message) in response.content.decode()
    assert SurveyVersion.objects.get(survey=draft).content["strings"]["hi"] == {}


def test_braces_elsewhere_are_plain_text(rc, draft):
    texts = {k: "x" for k in STRING_KEYS}
    texts["too_long"] = "{limit} {{max}}"
    texts["title"] = "रूढ़ियाँ {2026}"
    texts["submit"] = "जमा {"
    assert rc.post(f"/surveys/{draft.slug}/edit/texts/hi/", strings_post(texts)).status_code == 302
    stored = SurveyVersion.objects.get(survey=draft).content["strings"]["hi"]
    assert (stored["too_long"], stored["title"], stored["submit"]) == (
        "{limit} {{max}}",
        "रूढ़ियाँ {2026}",
        "जमा {",
    )
    assert stored["too_long"].format(limit=500) == "500 {max}"


def test_an_overlong_string_is_refused_with_the_limit(rc, draft):
    texts = {key: "x" for key in STRING_KEYS}
    texts["too_long"] = "{limit}"
    texts["introduction"] = "अ" * 5001
    response = rc.post(f"/surveys/{draft.slug}/edit/texts/hi/", strings_post(texts))
    assert response.status_code == 400
    assert "hi: introduction: 5001 characters; at most 5000" in response.content.decode()
    assert SurveyVersion.objects.get(survey=draft).content["strings"]["hi"] == {}


def test_a_language_the_survey_lacks_is_404(rc, draft):
    assert rc.get(f"/surveys/{draft.slug}/edit/texts/fr/").status_code == 404


def test_texts_page_shows_each_strings_purpose_and_a_reference(rc, survey):
    html = rc.get("/surveys/estereotipos/edit/texts/hi/").content.decode()
    for key, purpose in STRING_KEYS.items():
        assert f'name="{key}"' in html and escape(purpose) in html
    assert "Data-protection text, shown before the demographic questions" in html
    # The reference beside each field is the survey's other language (Spanish).
    assert 'class="string-ref" lang="es"' in html


# --- versioning through the editor -------------------------------------------------------


def test_editing_an_answered_version_makes_a_new_one_and_keeps_the_old(rc, survey):
    v1 = survey.current_version
    answer = answer_for(survey, v1)
    old_content = copy.deepcopy(v1.content)
    texts = dict(v1.content["strings"]["es"])
    texts["title"] = "Estereotipos en nuestra sociedad (2ª edición)"
    response = rc.post("/surveys/estereotipos/edit/texts/es/", strings_post(texts))
    assert response.status_code == 302
    survey.refresh_from_db()
    v2 = survey.current_version
    assert v2.number == 2 and v2.pk != v1.pk
    assert v2.content["strings"]["es"]["title"].endswith("(2ª edición)")
    v1.refresh_from_db()
    assert v1.content == old_content
    answer.refresh_from_db()
    assert answer.version_id == v1.pk
    page = rc.get("/surveys/estereotipos/").content.decode()
    v1_row = page.split('data-version="1"')[1].split("</tr>")[0]
    assert 'data-answers="1"' in v1_row and 'data-frozen="yes"' in v1_row
    v2_row = page.split('data-version="2"')[1].split("</tr>")[0]
    assert 'data-answers="0"' in v2_row and 'data-frozen="no"' in v2_row
    # The old version still reads as it was given, marked read-only.
    old = rc.get("/surveys/estereotipos/versions/1/").content.decode()
    assert 'id="read-only"' in old and "Estereotipos en nuestra sociedad (2ª" not in old
    # A second edit, with no answer on version 2, changes version 2 in place.
    texts["title"] = "Estereotipos (3)"
    assert rc.post("/surveys/estereotipos/edit/texts/es/", strings_post(texts)).status_code == 302
    assert SurveyVersion.objects.filter(survey=survey).count() == 2
    v2.refresh_from_db()
    assert v2.content["strings"]["es"]["title"] == "Estereotipos (3)"


def test_editor_says_when_saving_will_make_a_new_version(rc, survey):
    answer_for(survey, survey.current_version)
    html = rc.get("/surveys/estereotipos/edit/questions/").content.decode()
    assert 'id="frozen-note"' in html and "saving makes version 2" in html


def test_an_open_survey_cannot_be_given_gaps(rc, survey):
    texts = dict(survey.current_version.content["strings"]["hi"])
    texts["submit"] = ""
    response = rc.post("/surveys/estereotipos/edit/texts/hi/", strings_post(texts))
    assert response.status_code == 400
    html = response.content.decode()
    assert 'id="save-refused"' in html and "hi: strings.submit is empty" in html
    survey.refresh_from_db()
    assert survey.current_version.content["strings"]["hi"]["submit"]


# --- categories and groups -----------------------------------------------------------------


def questions_post(survey: Survey, **changes) -> dict[str, str]:
    """The questions form as the page posts it, from the current content (no blank rows)."""
    content = survey.current_version.content
    post = {"answer_shape": content["answer_shape"], "categories": str(len(content["categories"]))}
    if content["ask_experience"]:
        post["ask_experience"] = "on"
    for i, category in enumerate(content["categories"]):
        post[f"c{i}-key"] = category["key"]
        post[f"c{i}-category"] = category["category"]
        if category.get("allow_other"):
            post[f"c{i}-allow_other"] = "on"
        for lang, label in category["labels"].items():
            post[f"c{i}-label-{lang}"] = label
        post[f"c{i}-groups"] = str(len(category["groups"]))
        for j, group in enumerate(category["groups"]):
            post[f"c{i}-g{j}-key"] = group["key"]
            for lang, label in group["labels"].items():
                post[f"c{i}-g{j}-label-{lang}"] = label
    post.update(changes)
    return post


def test_categories_round_trip_unchanged(rc, survey):
    before = copy.deepcopy(survey.current_version.content)
    assert (
        rc.post("/surveys/estereotipos/edit/questions/", questions_post(survey)).status_code == 302
    )
    survey.refresh_from_db()
    assert survey.current_version.content == before


def test_add_a_category_with_groups_remove_a_group_and_change_the_shape(rc, survey):
    post = questions_post(
        survey,
        **{
            "answer_shape": "tuple",
            "categories": "3",
            "c0-groups": "3",
            "c0-g1-remove": "on",  # hindu
            "c0-g2-key": "",
            "c0-g2-label-hi": "सिख",
            "c0-g2-label-es": "Sikhs",
            "c2-key": "",
            "c2-category": "Gender",
            "c2-label-hi": "लिंग",
            "c2-label-es": "Género",
            "c2-groups": "2",
            "c2-g0-key": "women",
            "c2-g0-label-hi": "महिलाएँ",
            "c2-g0-label-es": "Mujeres",
            "c2-g1-key": "",  # a blank row: ignored
        },
    )
    post.pop("ask_experience")
    response = rc.post("/surveys/estereotipos/edit/questions/", post)
    assert response.status_code == 302, response.content.decode()[:3000]
    survey.refresh_from_db()
    content = survey.current_version.content
    assert content["answer_shape"] == "tuple" and content["ask_experience"] is False
    religion = content["categories"][0]
    # The new group's key is made from its Latin-letter label.
    assert [g["key"] for g in religion["groups"]] == ["muslim", "sikhs"]
    gender = content["categories"][2]
    # No Latin label to make a key from the Hindi "लिंग"... the Spanish one gives it.
    assert gender["key"] == "genero"
    assert gender["category"] == "Gender" and gender["allow_other"] is False
    assert gender["labels"] == {"hi": "लिंग", "es": "Género"}
    assert gender["groups"] == [{"key": "women", "labels": {"hi": "महिलाएँ", "es": "Mujeres"}}]
    assert content_problems(content) == []


def test_a_new_label_left_empty_in_one_language_is_refused_for_an_open_survey(rc, survey):
    post = questions_post(
        survey, **{"c0-groups": "3", "c0-g2-key": "jain", "c0-g2-label-es": "Jainistas"}
    )
    response = rc.post("/surveys/estereotipos/edit/questions/", post)
    assert response.status_code == 400
    assert "hi: categories[religion].groups[jain] has no label" in response.content.decode()
    survey.refresh_from_db()
    assert len(survey.current_version.content["categories"][0]["groups"]) == 2


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"c0-key": "Religion!"}, "key &#x27;religion!&#x27;: lowercase letters"),
        ({"c1-key": "religion"}, "key &#x27;religion&#x27; is used twice"),
        ({"answer_shape": "essay"}, "answer shape: choose one of"),
        ({"c0-label-hi": "ध" * 301}, "category 1, hi label: 301 characters; at most 300"),
    ],
)
def test_bad_category_input_is_refused_and_says_where(rc, survey, changes, message):
    before = copy.deepcopy(survey.current_version.content)
    response = rc.post("/surveys/estereotipos/edit/questions/", questions_post(survey, **changes))
    assert response.status_code == 400
    assert message in response.content.decode()
    survey.refresh_from_db()
    assert survey.current_version.content == before


def test_a_flood_of_rows_is_refused(rc, survey):
    before = copy.deepcopy(survey.current_version.content)
    response = rc.post(
        "/surveys/estereotipos/edit/questions/", questions_post(survey, categories="100000")
    )
    assert response.status_code == 400
    assert "categories: 100000 rows posted; at most 200" in response.content.decode()
    survey.refresh_from_db()
    assert survey.current_version.content == before


def test_questions_page_offers_blank_rows_and_more(rc, survey):
    html = rc.get("/surveys/estereotipos/edit/questions/").content.decode()
    # Two categories and one blank one; each with its groups and a blank group row.
    assert 'name="categories" value="3"' in html
    assert 'name="c0-groups" value="3"' in html
    assert 'name="c2-groups" value="2"' in html
    html = rc.get("/surveys/estereotipos/edit/questions/?extra=5").content.decode()
    assert 'name="categories" value="7"' in html


# --- demographic questions -------------------------------------------------------------------


def demographics_post(survey: Survey, **changes) -> dict[str, str]:
    content = survey.current_version.content
    post = {"questions": str(len(content["demographics"]))}
    for i, question in enumerate(content["demographics"]):
        post[f"d{i}-key"] = question["key"]
        for lang, label in question["labels"].items():
            post[f"d{i}-label-{lang}"] = label
        post[f"d{i}-options"] = str(len(question["options"]))
        for j, option in enumerate(question["options"]):
            post[f"d{i}-o{j}-key"] = option["key"]
            for lang, label in option["labels"].items():
                post[f"d{i}-o{j}-label-{lang}"] = label
    post.update(changes)
    return post


def test_demographics_edit_remove_and_add(rc, survey):
    content = survey.current_version.content
    keys = [q["key"] for q in content["demographics"]]
    income = keys.index("income")
    gender = keys.index("gender")
    n_gender = len(content["demographics"][gender]["options"])
    post = demographics_post(
        survey,
        **{
            f"d{income}-remove": "on",
            f"d{gender}-label-hi": "जेंडर (लिंग)",
            f"d{gender}-options": str(n_gender + 1),
            f"d{gender}-o{n_gender}-key": "trans",
            f"d{gender}-o{n_gender}-label-hi": "ट्रांसजेंडर",
            f"d{gender}-o{n_gender}-label-es": "Trans",
        },
    )
    assert rc.post("/surveys/estereotipos/edit/demographics/", post).status_code == 302
    survey.refresh_from_db()
    questions = {q["key"]: q for q in survey.current_version.content["demographics"]}
    assert "income" not in questions
    assert questions["gender"]["labels"]["hi"] == "जेंडर (लिंग)"
    assert questions["gender"]["options"][-1] == {
        "key": "trans",
        "labels": {"hi": "ट्रांसजेंडर", "es": "Trans"},
    }


def test_prefer_not_is_not_an_option_key(rc, survey):
    post = demographics_post(
        survey,
        **{
            "d0-options": "7",
            "d0-o6-key": "prefer_not",
            "d0-o6-label-hi": "x",
            "d0-o6-label-es": "x",
        },
    )
    response = rc.post("/surveys/estereotipos/edit/demographics/", post)
    assert response.status_code == 400
    assert "key &#x27;prefer_not&#x27; is used twice" in response.content.decode()


# --- settings, languages, delete, inclusion rule ------------------------------------------------


def test_settings_saved_and_bad_dates_refused(rc, survey):
    response = rc.post(
        "/surveys/estereotipos/settings/",
        {"opens_at": "2026-12-01T10:00", "closes_at": "2026-11-01T10:00", "response_cap": "50"},
    )
    assert response.status_code == 400
    assert "The survey must close after it opens." in response.content.decode()
    survey.refresh_from_db()
    assert survey.closes_at is None and survey.response_cap is None
    response = rc.post(
        "/surveys/estereotipos/settings/",
        {"opens_at": "2026-12-01T10:00", "closes_at": "2027-01-01T10:00", "response_cap": "50"},
    )
    assert response.status_code == 302
    survey.refresh_from_db()
    assert survey.response_cap == 50 and survey.closes_at > survey.opens_at
    assert rc.post("/surveys/estereotipos/settings/", {"response_cap": "0"}).status_code == 400


def test_languages_added_and_removed(rc, draft):
    assert rc.post(f"/surveys/{draft.slug}/languages/", {"languages": "ta, en"}).status_code == 302
    draft.refresh_from_db()
    content = draft.current_version.content
    assert content["languages"] == ["ta", "en"]
    assert content["strings"]["en"] == DEFAULT_STRINGS["en"] and content["strings"]["ta"] == {}
    assert set(content["demographics"][0]["labels"]) == {"ta", "en"}
    response = rc.post(f"/surveys/{draft.slug}/languages/", {"languages": "ta, Tamil"})
    assert response.status_code == 400 and "&#x27;Tamil&#x27; is not a language code" in (
        response.content.decode()
    )


def test_an_open_survey_cannot_gain_a_language_without_texts(rc, survey):
    response = rc.post("/surveys/estereotipos/languages/", {"languages": "hi, es, ta"})
    assert response.status_code == 409
    html = response.content.decode()
    assert "ta: strings.title is empty" in html
    assert "The languages were not changed: the survey is open" in html
    survey.refresh_from_db()
    assert survey.current_version.content["languages"] == ["hi", "es"]


def test_delete_a_draft_but_not_an_open_survey(rc, draft, survey):
    assert rc.post(f"/surveys/{draft.slug}/delete/").status_code == 302
    assert not Survey.objects.filter(slug=draft.slug).exists()
    response = rc.post("/surveys/estereotipos/delete/", follow=True)
    assert "only a draft can be deleted" in response.content.decode()
    assert Survey.objects.filter(slug="estereotipos").exists()


def test_inclusion_rule_set_from_the_survey_page(rc, survey):
    page = rc.get("/surveys/estereotipos/").content.decode()
    assert "At least 3 mentions, or 2 with one respondent affected (EsBBQ)" in page
    response = rc.post(
        "/surveys/estereotipos/inclusion/", {"rule": "bharatbbq", "evidence_required": ""}
    )
    assert response.status_code == 302
    dataset = Dataset.objects.get(pk=survey.dataset_id)
    assert dataset.inclusion_rule == "bharatbbq" and dataset.evidence_required is False
    response = rc.post("/surveys/estereotipos/inclusion/", {"rule": "nope"})
    assert response.status_code == 400
    assert Dataset.objects.get(pk=survey.dataset_id).inclusion_rule == "bharatbbq"


def test_survey_page_links_to_import_coding_and_reports(rc, survey):
    html = rc.get("/surveys/estereotipos/").content.decode()
    for path in ("import", "coding", "reports"):
        assert f'href="/surveys/estereotipos/{path}/"' in html
    assert f'href="/?dataset={survey.dataset_id}"' not in html
    assert f'href="/concepts/?dataset={survey.dataset_id}"' in html
