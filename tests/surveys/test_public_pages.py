"""The respondents' public pages, /s/<slug>/, through the Django test client: the whole flow,
the survey's own language everywhere (no English on a Hindi page), the respondent cookie,
CSRF, the honeypot, the throttle (Redis, as in production), friendly closed/full/not-open
pages, and erasing one's answers by code."""

from __future__ import annotations

import html
import re
import uuid
from datetime import timedelta
from html.parser import HTMLParser

import pytest
from django.test import Client
from django.utils import timezone

from apps.surveys.models import Answer, Respondent
from apps.surveys.services.responses import deletion_code_for
from apps.surveys.services.surveys import survey_close
from apps.surveys.strings import DEFAULT_STRINGS
from apps.surveys.views_public import AUTONYMS, COOKIE

pytestmark = pytest.mark.django_db

BASE = "/s/estereotipos"
HINDI_TEXT = "फलाँ जगह के लोग कंजूस होते हैं"


@pytest.fixture(autouse=True)
def redis_cache(settings):
    """The throttle's counts in Redis, as in production (a fresh key prefix per test, so no
    test sees another's counts and nothing needs flushing)."""
    import os

    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": os.environ.get("KASAUTI_TEST_REDIS_URL", "redis://127.0.0.1:6379/15"),
            "KEY_PREFIX": f"t{uuid.uuid4().hex}",
        }
    }
    yield


def consent(client: Client, lang: str = "hi") -> str:
    response = client.post(f"{BASE}/", {"consent": "yes", "lang": lang})
    assert response.status_code == 303, response.content.decode()[:500]
    return client.cookies[COOKIE].value


def answer_post(client: Client, lang: str = "hi", *, address: str = "127.0.0.1", **overrides):
    data = {
        "lang": lang,
        "version": "1",
        "category": "religion",
        "group": ["religion/muslim"],
        "text": HINDI_TEXT,
        "heard": "1",
        **overrides,
    }
    return client.post(f"{BASE}/answer/", data, REMOTE_ADDR=address)


class VisibleText(HTMLParser):
    """Text a person sees or hears: element text outside script/style and hidden parts, plus
    the attributes read aloud (aria-label, title, alt, placeholder, value of buttons)."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self.skip = 0
        self.stack: list[bool] = []

    def handle_starttag(self, tag, attrs) -> None:
        attrs = dict(attrs)
        hidden = tag in ("script", "style") or "hidden" in attrs or attrs.get("aria-hidden")
        if tag not in ("input", "meta", "link", "br", "img"):
            self.stack.append(bool(hidden))
            self.skip += bool(hidden)
        if not self.skip:
            for name in ("aria-label", "title", "alt", "placeholder"):
                if attrs.get(name):
                    self.parts.append(attrs[name])

    def handle_endtag(self, tag) -> None:
        if tag not in ("input", "meta", "link", "br", "img") and self.stack:
            self.skip -= self.stack.pop()

    def handle_data(self, data) -> None:
        if not self.skip and data.strip():
            self.parts.append(data.strip())


def visible_text(response) -> str:
    parser = VisibleText()
    parser.feed(response.content.decode())
    return "\n".join(parser.parts)


def assert_no_english(response, *, allowed: tuple[str, ...] = ()) -> None:
    page = response.content.decode()
    assert '<html lang="hi"' in page
    text = visible_text(response)
    # The parser sees the page's words: the heading is there, in Hindi.
    heading = re.search(r"<h1[^>]*>([^<]+)</h1>", page).group(1)
    assert heading in text and re.search("[\u0900-\u097f]{3}", heading)
    for key, english in DEFAULT_STRINGS["en"].items():
        english = english.split("{")[0].strip()
        assert english not in text, f"English {key!r} on a Hindi page"
        # Longer texts not even in the markup (an attribute, a hidden element).
        assert len(english) < 20 or english not in page, f"English {key!r} in the page"
    for word in (*allowed, *AUTONYMS.values()):
        text = text.replace(word, "")
    latin = re.findall(r"[A-Za-z]{2,}", text)
    assert latin == [], f"Latin-script words on a Hindi page: {latin}"


# --- the flow ------------------------------------------------------------------------------


def test_the_whole_flow_in_hindi(client, survey) -> None:
    start = client.get(f"{BASE}/")
    page = start.content.decode()
    assert start.status_code == 200
    assert '<html lang="hi"' in page
    hi = survey.current_version.content["strings"]["hi"]
    for key in ("title", "introduction", "consent", "data_protection", "consent_agree", "start"):
        assert html.escape(hi[key]) in page or hi[key] in page, key
    assert 'href="/s/estereotipos/?lang=es"' in page  # the language switcher
    assert COOKIE not in client.cookies  # no cookie before consent

    moved = client.post(f"{BASE}/", {"consent": "yes", "lang": "hi"})
    assert moved.status_code == 303 and moved["Location"] == f"{BASE}/about-you/?lang=hi"
    cookie = client.cookies[COOKIE]
    assert cookie["httponly"] and cookie["samesite"] == "Lax"
    assert cookie["path"] == f"{BASE}/" and not cookie["secure"]
    token = cookie.value

    about = client.get(moved["Location"])
    assert about.status_code == 200 and hi["demographics_heading"] in about.content.decode()
    saved = client.post(
        f"{BASE}/about-you/",
        {"lang": "hi", "version": "1", "d_age": "25-34", "d_religion_prefer_not": "1"},
    )
    assert saved.status_code == 303 and saved["Location"] == f"{BASE}/answer/?lang=hi"
    respondent = Respondent.objects.get()
    assert respondent.demographics == {"age": "25-34", "religion": "prefer_not"}
    # Asked once: the page now goes straight on to the answer form.
    assert client.get(f"{BASE}/about-you/?lang=hi")["Location"] == f"{BASE}/answer/?lang=hi"
    assert client.get(f"{BASE}/?lang=hi").status_code == 200
    assert client.post(f"{BASE}/", {"consent": "yes", "lang": "hi"})["Location"] == (
        f"{BASE}/answer/?lang=hi"
    )

    form = client.get(f"{BASE}/answer/?lang=hi")
    assert form.status_code == 200 and hi["answer_heading"] in form.content.decode()
    first = answer_post(client, affected="1", experience="बस में सुना")
    assert first.status_code == 303 and first["Location"] == f"{BASE}/thanks/?lang=hi"
    thanks = client.get(first["Location"])
    code = deletion_code_for(token=token)
    assert code in thanks.content.decode() and hi["another"] in thanks.content.decode()
    second = answer_post(client, category="", group=["region/andalusia"], text="दूसरी धारणा")
    assert second.status_code == 303
    answers = list(Answer.objects.order_by("pk"))
    assert len(answers) == 2 and {a.respondent_id for a in answers} == {respondent.pk}
    assert answers[0].text == HINDI_TEXT and answers[0].affected and answers[0].language == "hi"
    # Ticking a group of one category answers the category question too.
    assert (answers[1].category_key, answers[1].group_keys) == ("region", ["andalusia"])

    done = client.get(f"{BASE}/done/?lang=hi")
    assert code in done.content.decode()
    assert client.cookies[COOKIE].value == ""  # finished: the browser forgets the respondent
    assert Respondent.objects.count() == 1


def test_spanish_is_chosen_with_lang_and_the_first_language_is_the_default(client, survey) -> None:
    assert '<html lang="hi"' in client.get(f"{BASE}/").content.decode()
    spanish = client.get(f"{BASE}/?lang=es")
    page = spanish.content.decode()
    assert '<html lang="es"' in page
    assert "Los estereotipos en nuestra sociedad" in page and "Empezar" in page
    assert client.get(f"{BASE}/?lang=fr").content.decode().count('<html lang="hi"') == 1
    consent(client, "es")
    client.post(f"{BASE}/about-you/", {"lang": "es", "skip": "1"})
    form = client.get(f"{BASE}/answer/?lang=es").content.decode()
    assert "¿Cuál es el estereotipo?" in form and "Religión" in form
    response = answer_post(client, "es", text="La gente de tal sitio es vaga")
    assert response["Location"] == f"{BASE}/thanks/?lang=es"
    assert Answer.objects.get().language == "es"


def test_hindi_pages_show_no_english(client, survey) -> None:
    """Every page and state a respondent can meet, rendered in Hindi: no English string of the
    defaults, no Latin-script word at all (but the deletion code and the language names)."""
    assert_no_english(client.get(f"{BASE}/"))
    assert_no_english(client.post(f"{BASE}/", {"lang": "hi"}))  # consent missing
    token = consent(client)
    code = deletion_code_for(token=token)
    assert_no_english(client.get(f"{BASE}/about-you/?lang=hi"))
    assert_no_english(client.post(f"{BASE}/about-you/", {"lang": "hi", "d_religion": "x" * 300}))
    client.post(f"{BASE}/about-you/", {"lang": "hi", "skip": "1"})
    assert_no_english(client.get(f"{BASE}/answer/?lang=hi"))
    assert_no_english(answer_post(client, text="", heard=""))  # required errors
    assert_no_english(answer_post(client, text="क" * 3000))  # too long
    answer_post(client)
    assert_no_english(client.get(f"{BASE}/thanks/?lang=hi"), allowed=(code,))
    assert_no_english(client.get(f"{BASE}/delete/?lang=hi"))
    assert_no_english(client.post(f"{BASE}/delete/", {"lang": "hi", "code": "ZZZZ-ZZZZ"}))
    assert_no_english(client.post(f"{BASE}/delete/", {"lang": "hi", "code": code}))
    assert_no_english(client.get(f"{BASE}/done/?lang=hi"))
    survey_close(survey=survey)
    assert_no_english(client.get(f"{BASE}/?lang=hi"))


def test_errors_are_tied_to_their_fields_and_focused(client, survey) -> None:
    consent(client)
    client.post(f"{BASE}/about-you/", {"lang": "hi", "skip": "1"})
    response = answer_post(client, text="", heard="")
    page = response.content.decode()
    assert response.status_code == 400
    hi = survey.current_version.content["strings"]["hi"]
    assert page.count(hi["required"]) == 2
    assert 'id="e_text"' in page and 'aria-describedby="h_text e_text"' in page
    assert 'id="f_exposure" aria-describedby="e_exposure"' in page
    # The first field with an error has the focus; only one does.
    assert page.count(" autofocus") == 1
    assert re.search(r'<textarea id="a_text"[^>]*autofocus', page)
    assert Answer.objects.count() == 0


def test_pages_need_consent_first(client, survey) -> None:
    for path in ("about-you/", "answer/", "thanks/"):
        response = client.get(f"{BASE}/{path}?lang=es")
        assert response.status_code == 303 and response["Location"] == f"{BASE}/?lang=es"
    refused = client.post(f"{BASE}/", {"lang": "hi"})
    assert refused.status_code == 400 and COOKIE not in client.cookies
    assert 'aria-describedby="e_consent"' in refused.content.decode()


def test_cookie_is_secure_over_https(client, survey) -> None:
    client.post(f"{BASE}/", {"consent": "yes", "lang": "hi"}, secure=True)
    assert client.cookies[COOKIE]["secure"]


# --- bad input -----------------------------------------------------------------------------


def test_a_100_kb_answer_is_refused_naming_the_limit_and_kept_in_the_form(client, survey) -> None:
    consent(client)
    client.post(f"{BASE}/about-you/", {"lang": "es", "skip": "1"})
    typed = "palabra " * 12_800  # 102,400 characters
    response = answer_post(client, "es", text=typed)
    page = response.content.decode()
    assert response.status_code == 400
    assert "Esta respuesta es demasiado larga: 2000 caracteres como máximo." in page
    assert typed.strip() in page  # nothing the respondent typed is lost
    assert Answer.objects.count() == 0


def test_html_and_script_are_escaped(client, survey) -> None:
    consent(client)
    client.post(f"{BASE}/about-you/", {"lang": "hi", "skip": "1"})
    script = '<script>alert("x")</script><img src=x onerror=alert(1)>'
    response = answer_post(client, text=script, heard="")  # an error: the form comes back
    page = response.content.decode()
    assert "<script>alert" not in page and "<img src=x" not in page
    assert html.escape(script) in page
    answer_post(client, text=script)
    assert Answer.objects.get().text == script  # stored as typed, escaped when shown


def test_the_honeypot_looks_accepted_and_stores_nothing(client, survey) -> None:
    consent(client)
    client.post(f"{BASE}/about-you/", {"lang": "hi", "skip": "1"})
    form = client.get(f"{BASE}/answer/?lang=hi").content.decode()
    assert re.search(r'<div class="sv-hp" aria-hidden="true">', form)
    assert re.search(r'name="website" value="" tabindex="-1" autocomplete="off"', form)
    response = answer_post(client, website="http://spam.example")
    assert response.status_code == 303 and response["Location"] == f"{BASE}/thanks/?lang=hi"
    assert Answer.objects.count() == 0


def test_csrf_is_enforced(survey) -> None:
    client = Client(enforce_csrf_checks=True)
    refused = client.post(f"{BASE}/", {"consent": "yes", "lang": "hi"})
    assert refused.status_code == 403 and COOKIE not in client.cookies
    page = client.get(f"{BASE}/").content.decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    accepted = client.post(
        f"{BASE}/", {"consent": "yes", "lang": "hi", "csrfmiddlewaretoken": token}
    )
    assert accepted.status_code == 303 and client.cookies[COOKIE].value
    client.post(f"{BASE}/about-you/", {"lang": "hi", "skip": "1", "csrfmiddlewaretoken": token})
    data = {"lang": "hi", "category": "religion", "text": HINDI_TEXT, "heard": "1"}
    assert client.post(f"{BASE}/answer/", data).status_code == 403
    assert Answer.objects.count() == 0
    data["csrfmiddlewaretoken"] = token
    assert client.post(f"{BASE}/answer/", data).status_code == 303
    assert Answer.objects.count() == 1


def test_the_throttle_answers_429_with_everything_typed_kept(client, survey, settings) -> None:
    from django.core.cache import cache

    # A day's window: the test cannot straddle a window boundary (the minute windows are
    # tested with a given clock in test_fixed_windows_and_retry_after).
    settings.KASAUTI_SURVEY_SUBMIT_RATE = "4/day"
    consent(client)  # 1
    client.post(f"{BASE}/about-you/", {"lang": "hi", "skip": "1"})  # 2
    assert answer_post(client).status_code == 303  # 3
    assert answer_post(client).status_code == 303  # 4
    typed = "पाँचवीं धारणा <b>मोटे अक्षर</b>"
    response = answer_post(client, text=typed, affected="1", experience="मेरा अनुभव", heard="")
    page = response.content.decode()
    assert response.status_code == 429
    assert 0 < int(response["Retry-After"]) <= 86_400
    hi = survey.current_version.content["strings"]["hi"]
    assert hi["throttled"] in page and 'role="alert"' in page
    assert html.escape(typed) in page and "मेरा अनुभव" in page
    assert re.search(r'id="a_affected" name="affected" value="1" checked', page)
    assert re.search(r'id="a_heard" name="heard" value="1">', page)  # unticked stays unticked
    assert re.search(r'value="religion/muslim" checked', page)
    assert Answer.objects.count() == 2  # nothing stored
    # Another address is not throttled.
    other = answer_post(client, address="10.9.8.7")
    assert other.status_code == 303 and Answer.objects.count() == 3
    # No address is stored, not even in the cache's keys.
    keys = [k.decode() for k in cache._cache.get_client().keys("*")]
    prefix = settings.CACHES["default"]["KEY_PREFIX"]
    ours = [k for k in keys if k.startswith(prefix)]
    assert len(ours) == 2, ours  # one counter per address
    assert not any("127.0.0.1" in k or "10.9.8.7" in k for k in keys)


def test_the_throttle_also_guards_the_deletion_code(client, survey, settings) -> None:
    settings.KASAUTI_SURVEY_SUBMIT_RATE = "2/day"
    for _ in range(2):
        assert (
            client.post(f"{BASE}/delete/", {"lang": "es", "code": "AAAA-AAAA"}).status_code == 404
        )
    refused = client.post(f"{BASE}/delete/", {"lang": "es", "code": "BBBB-BBBB"})
    assert refused.status_code == 429 and 'value="BBBB-BBBB"' in refused.content.decode()


def test_fixed_windows_and_retry_after(settings) -> None:
    from django.test import RequestFactory

    from apps.surveys.throttle import SurveySubmitThrottle

    settings.KASAUTI_SURVEY_SUBMIT_RATE = "3/min"
    request = RequestFactory().post("/s/x/answer/", REMOTE_ADDR="192.0.2.7")
    other = RequestFactory().post("/s/x/answer/", REMOTE_ADDR="192.0.2.8")
    throttle = SurveySubmitThrottle()
    start = 1_800_000_000.5  # half a second into a minute
    verdicts = [throttle.check(request, now=start + i) for i in range(4)]
    assert [v.allowed for v in verdicts] == [True, True, True, False]
    assert verdicts[3].retry_after == 57  # 3.5 s into the minute: 56.5 s left, rounded up
    assert throttle.check(other, now=start + 5).allowed
    assert throttle.check(request, now=start + 59.4).allowed is False
    assert throttle.check(request, now=start + 60).allowed  # the next minute: a new count
    # The key changes with the window and names no address.
    keys = {throttle.key_for(request, w) for w in (1, 2)} | {throttle.key_for(other, 1)}
    assert len(keys) == 3 and not any("192.0.2" in key for key in keys)
    settings.KASAUTI_SURVEY_SUBMIT_RATE = "off"
    assert all(SurveySubmitThrottle().check(request, now=start).allowed for _ in range(10))


# --- availability --------------------------------------------------------------------------


def test_a_full_survey_shows_the_full_page(client, survey) -> None:
    survey.response_cap = 1
    survey.save()
    consent(client)
    client.post(f"{BASE}/about-you/", {"lang": "hi", "skip": "1"})
    assert answer_post(client).status_code == 303
    hi = survey.current_version.content["strings"]["hi"]
    page = client.get(f"{BASE}/answer/?lang=hi")
    assert page.status_code == 200 and 'data-reason="full"' in page.content.decode()
    assert hi["closed_text"] in page.content.decode()
    refused = answer_post(client)
    assert refused.status_code == 409 and 'data-reason="full"' in refused.content.decode()
    assert Answer.objects.count() == 1
    assert 'data-reason="full"' in client.get(f"{BASE}/").content.decode()


def test_closed_and_not_open_pages(client, survey) -> None:
    es = survey.current_version.content["strings"]["es"]
    survey.opens_at = timezone.now() + timedelta(days=2)
    survey.save()
    page = client.get(f"{BASE}/?lang=es").content.decode()
    assert 'data-reason="not_open"' in page and es["not_open_text"] in page
    survey.opens_at = None
    survey.closes_at = timezone.now() - timedelta(minutes=1)
    survey.save()
    page = client.get(f"{BASE}/?lang=es").content.decode()
    assert 'data-reason="closed"' in page and es["closed_heading"] in page
    survey.closes_at = None
    survey.save()
    survey_close(survey=survey)
    page = client.get(f"{BASE}/?lang=es").content.decode()
    assert 'data-reason="closed"' in page and es["closed_text"] in page
    # Erasing stays possible after the survey closed.
    assert client.get(f"{BASE}/delete/?lang=es").status_code == 200


def test_a_draft_or_unknown_survey_is_not_found(client, survey) -> None:
    survey.status = survey.Status.DRAFT
    survey.save()
    for path in ("", "answer/", "delete/", "thanks/"):
        assert client.get(f"{BASE}/{path}").status_code == 404
    assert client.get("/s/no-such-survey/").status_code == 404


# --- erasing -------------------------------------------------------------------------------


def test_erasing_by_code_on_the_delete_page(client, survey) -> None:
    token = consent(client)
    client.post(f"{BASE}/about-you/", {"lang": "es", "d_age": "18-24"})
    answer_post(client, "es")
    answer_post(client, "es")
    other = Client()
    consent(other)
    other.post(f"{BASE}/about-you/", {"lang": "es", "skip": "1"})
    answer_post(other, "es")
    es = survey.current_version.content["strings"]["es"]

    unknown = client.post(f"{BASE}/delete/", {"lang": "es", "code": "ZZZZ-ZZZ2"})
    assert unknown.status_code == 404 and es["delete_unknown"] in unknown.content.decode()
    assert Answer.objects.count() == 3

    code = deletion_code_for(token=token)
    erased = client.post(f"{BASE}/delete/", {"lang": "es", "code": code.lower()})
    assert erased.status_code == 200 and es["deleted"] in erased.content.decode()
    assert Answer.objects.count() == 1 and Respondent.objects.count() == 1
    assert client.cookies[COOKIE].value == ""  # this browser's respondent is gone
    again = client.post(f"{BASE}/delete/", {"lang": "es", "code": code})
    assert again.status_code == 404
