"""Every string a respondent can see, by key, with default texts per language.

A survey's version copies these defaults for its languages when it is created; researchers edit
them per language (a Hindi or Spanish survey shows no English). A language not listed here
starts empty and must be filled in before the survey can open (questionnaire.content_problems).
"""

from __future__ import annotations

# key -> what it is for (shown to the researcher next to the field).
STRING_KEYS: dict[str, str] = {
    "title": "Survey title",
    "introduction": "Introduction, shown on the first page",
    "consent": "Consent text the respondent agrees to",
    "data_protection": "Data-protection text, shown before the demographic questions",
    "consent_agree": "Consent checkbox label",
    "start": "Button: start",
    "demographics_heading": "Heading of the optional demographic questions",
    "demographics_help": "Help under that heading (all optional)",
    "prefer_not_to_say": "The 'prefer not to say' option of every demographic question",
    "skip": "Button: skip the demographic questions",
    "continue": "Button: continue",
    "answer_heading": "Heading of the answer form",
    "category_label": "Question: social category",
    "group_label": "Question: which group(s)",
    "group_other_label": "Field: another group, typed in",
    "stereotype_label": "Question: the stereotype (free text)",
    "stereotype_help": "Help under the stereotype question",
    "attribute_label": "Question: the attribute (group, attribute tuple)",
    "exposure_label": "Question: how do you know this stereotype",
    "heard": "Option: I have heard it",
    "witnessed": "Option: I have witnessed it",
    "affected": "Option: I have been affected by it",
    "experience_label": "Question: describe the experience (optional)",
    "submit": "Button: submit the answer",
    "thanks_heading": "Heading after an answer was saved",
    "another": "Button: report another stereotype",
    "finish": "Button: finish",
    "deletion_code_heading": "Heading of the deletion code box",
    "deletion_code_help": "How to use the deletion code",
    "delete_heading": "Heading of the page to erase one's answers",
    "delete_label": "Field: deletion code",
    "delete_submit": "Button: erase my answers",
    "deleted": "Message: the answers were erased",
    "delete_unknown": "Message: no answers match that code",
    "closed_heading": "Page when the survey is closed or full: heading",
    "closed_text": "Page when the survey is closed or full: text",
    "not_open_text": "Page when the survey has not opened yet",
    "too_long": "Error: an answer is too long ({limit} characters at most)",
    "required": "Error: this field is required",
    "throttled": "Error: too many answers from this connection (nothing was lost, try again)",
    "optional": "Marker for optional fields",
}

DEFAULT_STRINGS: dict[str, dict[str, str]] = {
    "en": {
        "title": "Stereotypes in our society",
        "introduction": (
            "We are collecting the stereotypes people hear about social groups, to build a "
            "benchmark that tests whether language models repeat them. No account is needed."
        ),
        "consent": (
            "Taking part is voluntary and unpaid. Your answers are stored without your name "
            "or address and are used only for research."
        ),
        "data_protection": (
            "The questions below are optional. They help us see who took part; they are only "
            "ever reported as counts, and small counts are hidden."
        ),
        "consent_agree": "I have read this and agree to take part",
        "start": "Start",
        "demographics_heading": "About you (optional)",
        "demographics_help": "Every question is optional. You will be asked only once.",
        "prefer_not_to_say": "Prefer not to say",
        "skip": "Skip these questions",
        "continue": "Continue",
        "answer_heading": "Report a stereotype",
        "category_label": "Which social category is it about?",
        "group_label": "Which group or groups does it target?",
        "group_other_label": "Another group (type it in)",
        "stereotype_label": "What is the stereotype?",
        "stereotype_help": "Write it as you have heard it, for example: 'X people are lazy'.",
        "attribute_label": "What is said about them?",
        "exposure_label": "How do you know this stereotype?",
        "heard": "I have heard it",
        "witnessed": "I have seen it cause harm to someone",
        "affected": "I have been affected by it",
        "experience_label": "Describe the experience",
        "submit": "Submit",
        "thanks_heading": "Thank you, your answer was saved",
        "another": "Report another stereotype",
        "finish": "Finish",
        "deletion_code_heading": "Your deletion code",
        "deletion_code_help": "Keep this code. With it you can erase all your answers later.",
        "delete_heading": "Erase my answers",
        "delete_label": "Deletion code",
        "delete_submit": "Erase my answers",
        "deleted": "Your answers were erased.",
        "delete_unknown": "No answers match that code.",
        "closed_heading": "This survey is closed",
        "closed_text": "Thank you for your interest. The survey no longer takes answers.",
        "not_open_text": "The survey has not opened yet. Please come back later.",
        "too_long": "This answer is too long: {limit} characters at most.",
        "required": "Please fill in this field.",
        "throttled": (
            "Too many answers from this connection. Your text is still here: please wait a "
            "minute and submit again."
        ),
        "optional": "optional",
    },
}

# EsBBQ Appendix A.2: the optional demographic questions. key -> {language: label}; options
# are key -> {language: label}. "Prefer not to say" is added to every question
# (questionnaire.PREFER_NOT).
DEFAULT_DEMOGRAPHICS: list[dict] = [
    {
        "key": "age",
        "labels": {"en": "Age"},
        "options": [
            {"key": k, "labels": {"en": k}}
            for k in ("18-24", "25-34", "35-44", "45-54", "55-64", "65+")
        ],
    },
    {"key": "region_birth", "labels": {"en": "Region of birth"}, "options": []},
    {"key": "region_residence", "labels": {"en": "Region of residence"}, "options": []},
    {
        "key": "gender",
        "labels": {"en": "Gender"},
        "options": [
            {"key": "woman", "labels": {"en": "Woman"}},
            {"key": "man", "labels": {"en": "Man"}},
            {"key": "non_binary", "labels": {"en": "Non-binary"}},
            {"key": "other", "labels": {"en": "Other"}},
        ],
    },
    {"key": "ethnicity", "labels": {"en": "Ethnicity"}, "options": []},
    {"key": "religion", "labels": {"en": "Religion"}, "options": []},
    {
        "key": "lgbtqia",
        "labels": {"en": "Are you a member of the LGBTQIA+ community?"},
        "options": [
            {"key": "yes", "labels": {"en": "Yes"}},
            {"key": "no", "labels": {"en": "No"}},
        ],
    },
    {
        "key": "disability",
        "labels": {"en": "Do you have a disability?"},
        "options": [
            {"key": "yes", "labels": {"en": "Yes"}},
            {"key": "no", "labels": {"en": "No"}},
        ],
    },
    {
        "key": "discriminated_group",
        "labels": {"en": "Do you belong to a group that is discriminated against?"},
        "options": [
            {"key": "yes", "labels": {"en": "Yes"}},
            {"key": "no", "labels": {"en": "No"}},
        ],
    },
    {
        "key": "education",
        "labels": {"en": "Highest level of education"},
        "options": [
            {"key": "none", "labels": {"en": "No formal education"}},
            {"key": "primary", "labels": {"en": "Primary"}},
            {"key": "secondary", "labels": {"en": "Secondary"}},
            {"key": "undergraduate", "labels": {"en": "Undergraduate degree"}},
            {"key": "postgraduate", "labels": {"en": "Postgraduate degree"}},
        ],
    },
    {
        "key": "income",
        "labels": {"en": "Monthly income"},
        "options": [
            {"key": "low", "labels": {"en": "Low"}},
            {"key": "middle", "labels": {"en": "Middle"}},
            {"key": "high", "labels": {"en": "High"}},
        ],
    },
]
