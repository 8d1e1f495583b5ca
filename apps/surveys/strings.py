"""Every string a respondent can see, by key, with default texts per language.

A survey's version copies these defaults for its languages when it is created; researchers edit
them per language (a Hindi or Spanish survey shows no English). Kasauti ships English, Hindi,
Spanish and Catalan texts (the languages of BharatBBQ and EsBBQ). A language not listed here
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
    "hi": {
        "title": "हमारे समाज में रूढ़िवादी धारणाएँ",
        "introduction": (
            "हम वे रूढ़िवादी धारणाएँ इकट्ठा कर रहे हैं जो लोग सामाजिक समूहों के बारे में सुनते हैं, "
            "ताकि एक ऐसा परीक्षण-संग्रह बनाया जा सके जो जाँचे कि भाषा मॉडल इन्हें दोहराते हैं या "
            "नहीं। इसके लिए कोई खाता बनाने की ज़रूरत नहीं है।"
        ),
        "consent": (
            "इसमें भाग लेना स्वैच्छिक है और इसके लिए कोई भुगतान नहीं किया जाता। आपके उत्तर आपके "
            "नाम या पते के बिना सहेजे जाते हैं और केवल शोध के लिए उपयोग किए जाते हैं।"
        ),
        "data_protection": (
            "आगे के प्रश्न वैकल्पिक हैं। इनसे हमें पता चलता है कि किन लोगों ने भाग लिया; इन्हें "
            "केवल गिनती के रूप में बताया जाता है, और छोटी गिनतियाँ छिपा दी जाती हैं।"
        ),
        "consent_agree": "मैंने यह पढ़ लिया है और मैं भाग लेने के लिए सहमत हूँ",
        "start": "शुरू करें",
        "demographics_heading": "आपके बारे में (वैकल्पिक)",
        "demographics_help": "हर प्रश्न वैकल्पिक है। ये प्रश्न आपसे केवल एक बार पूछे जाएँगे।",
        "prefer_not_to_say": "बताना नहीं चाहेंगे",
        "skip": "ये प्रश्न छोड़ें",
        "continue": "आगे बढ़ें",
        "answer_heading": "कोई रूढ़िवादी धारणा बताएँ",
        "category_label": "यह किस सामाजिक श्रेणी के बारे में है?",
        "group_label": "यह किस समूह या किन समूहों के बारे में है?",
        "group_other_label": "कोई और समूह (लिखकर बताएँ)",
        "stereotype_label": "वह रूढ़िवादी धारणा क्या है?",
        "stereotype_help": ("इसे वैसे ही लिखें जैसे आपने सुना है, उदाहरण के लिए: ‘फलाँ जगह के लोग आलसी होते हैं’।"),
        "attribute_label": "उनके बारे में क्या कहा जाता है?",
        "exposure_label": "आप इस धारणा के बारे में कैसे जानते हैं?",
        "heard": "मैंने इसे सुना है",
        "witnessed": "मैंने इससे किसी को नुकसान होते देखा है",
        "affected": "मैं ख़ुद इससे प्रभावित हुआ/हुई हूँ",
        "experience_label": "अपना अनुभव बताएँ",
        "submit": "भेजें",
        "thanks_heading": "धन्यवाद, आपका उत्तर सहेज लिया गया है",
        "another": "एक और रूढ़िवादी धारणा बताएँ",
        "finish": "समाप्त करें",
        "deletion_code_heading": "आपका मिटाने का कोड",
        "deletion_code_help": ("यह कोड सँभालकर रखें। इसकी मदद से आप बाद में अपने सभी उत्तर मिटा सकते हैं।"),
        "delete_heading": "मेरे उत्तर मिटाएँ",
        "delete_label": "मिटाने का कोड",
        "delete_submit": "मेरे उत्तर मिटाएँ",
        "deleted": "आपके उत्तर मिटा दिए गए हैं।",
        "delete_unknown": "इस कोड से जुड़ा कोई उत्तर नहीं मिला।",
        "closed_heading": "यह सर्वेक्षण बंद हो चुका है",
        "closed_text": "आपकी रुचि के लिए धन्यवाद। यह सर्वेक्षण अब उत्तर स्वीकार नहीं करता।",
        "not_open_text": "यह सर्वेक्षण अभी शुरू नहीं हुआ है। कृपया बाद में फिर आएँ।",
        "too_long": "यह उत्तर बहुत लंबा है: अधिकतम {limit} अक्षर लिखे जा सकते हैं।",
        "required": "कृपया यह जानकारी भरें।",
        "throttled": (
            "इस कनेक्शन से बहुत अधिक उत्तर आए हैं। आपका लिखा हुआ यहीं सुरक्षित है: कृपया एक मिनट रुककर फिर से भेजें।"
        ),
        "optional": "वैकल्पिक",
    },
    "es": {
        "title": "Los estereotipos en nuestra sociedad",
        "introduction": (
            "Estamos recogiendo los estereotipos que la gente oye sobre distintos grupos sociales "
            "para crear un banco de pruebas que compruebe si los modelos de lenguaje los repiten. "
            "No hace falta crear ninguna cuenta."
        ),
        "consent": (
            "La participación es voluntaria y no remunerada. Tus respuestas se guardan sin tu "
            "nombre ni tu dirección y solo se usan con fines de investigación."
        ),
        "data_protection": (
            "Las preguntas siguientes son opcionales. Nos ayudan a saber quién ha participado; "
            "solo se publican como recuentos, y los recuentos pequeños se ocultan."
        ),
        "consent_agree": "He leído esta información y acepto participar",
        "start": "Empezar",
        "demographics_heading": "Sobre ti (opcional)",
        "demographics_help": "Todas las preguntas son opcionales. Solo te las haremos una vez.",
        "prefer_not_to_say": "Prefiero no decirlo",
        "skip": "Saltar estas preguntas",
        "continue": "Continuar",
        "answer_heading": "Comparte un estereotipo",
        "category_label": "¿De qué categoría social trata?",
        "group_label": "¿A qué grupo o grupos se refiere?",
        "group_other_label": "Otro grupo (escríbelo)",
        "stereotype_label": "¿Cuál es el estereotipo?",
        "stereotype_help": (
            "Escríbelo tal como lo has oído, por ejemplo: «la gente de tal sitio es vaga»."
        ),
        "attribute_label": "¿Qué se dice de ese grupo?",
        "exposure_label": "¿Cómo conoces este estereotipo?",
        "heard": "Lo he oído",
        "witnessed": "He visto cómo perjudicaba a alguien",
        "affected": "Me ha afectado a mí",
        "experience_label": "Describe la experiencia",
        "submit": "Enviar",
        "thanks_heading": "Gracias, tu respuesta se ha guardado",
        "another": "Compartir otro estereotipo",
        "finish": "Terminar",
        "deletion_code_heading": "Tu código de borrado",
        "deletion_code_help": (
            "Guarda este código. Con él podrás borrar todas tus respuestas más adelante."
        ),
        "delete_heading": "Borrar mis respuestas",
        "delete_label": "Código de borrado",
        "delete_submit": "Borrar mis respuestas",
        "deleted": "Tus respuestas se han borrado.",
        "delete_unknown": "Ninguna respuesta corresponde a ese código.",
        "closed_heading": "Esta encuesta está cerrada",
        "closed_text": "Gracias por tu interés. La encuesta ya no admite respuestas.",
        "not_open_text": "La encuesta todavía no se ha abierto. Vuelve más tarde, por favor.",
        "too_long": "Esta respuesta es demasiado larga: {limit} caracteres como máximo.",
        "required": "Rellena este campo, por favor.",
        "throttled": (
            "Demasiadas respuestas desde esta conexión. Tu texto sigue aquí: espera un minuto y "
            "vuelve a enviarlo."
        ),
        "optional": "opcional",
    },
    "ca": {
        "title": "Els estereotips a la nostra societat",
        "introduction": (
            "Recollim els estereotips que la gent sent sobre diferents grups socials per crear "
            "un banc de proves que comprovi si els models de llenguatge els repeteixen. No cal "
            "crear cap compte."
        ),
        "consent": (
            "La participació és voluntària i no remunerada. Les teves respostes es desen sense "
            "el teu nom ni la teva adreça i només s'utilitzen per a la recerca."
        ),
        "data_protection": (
            "Les preguntes següents són opcionals. Ens ajuden a saber qui hi ha participat; "
            "només es publiquen com a recomptes, i els recomptes petits s'amaguen."
        ),
        "consent_agree": "He llegit aquesta informació i accepto participar-hi",
        "start": "Comença",
        "demographics_heading": "Sobre tu (opcional)",
        "demographics_help": "Totes les preguntes són opcionals. Només te les farem una vegada.",
        "prefer_not_to_say": "Prefereixo no dir-ho",
        "skip": "Omet aquestes preguntes",
        "continue": "Continua",
        "answer_heading": "Comparteix un estereotip",
        "category_label": "De quina categoria social tracta?",
        "group_label": "A quin grup o grups es refereix?",
        "group_other_label": "Un altre grup (escriu-lo)",
        "stereotype_label": "Quin és l'estereotip?",
        "stereotype_help": (
            "Escriu-lo tal com l'has sentit, per exemple: «la gent de tal lloc és mandrosa»."
        ),
        "attribute_label": "Què se'n diu, d'aquest grup?",
        "exposure_label": "Com coneixes aquest estereotip?",
        "heard": "L'he sentit",
        "witnessed": "He vist com perjudicava algú",
        "affected": "M'ha afectat a mi",
        "experience_label": "Descriu l'experiència",
        "submit": "Envia",
        "thanks_heading": "Gràcies, s'ha desat la teva resposta",
        "another": "Comparteix un altre estereotip",
        "finish": "Acaba",
        "deletion_code_heading": "El teu codi d'esborrament",
        "deletion_code_help": (
            "Guarda aquest codi. Amb ell podràs esborrar totes les teves respostes més endavant."
        ),
        "delete_heading": "Esborra les meves respostes",
        "delete_label": "Codi d'esborrament",
        "delete_submit": "Esborra les meves respostes",
        "deleted": "S'han esborrat les teves respostes.",
        "delete_unknown": "Cap resposta no correspon a aquest codi.",
        "closed_heading": "Aquesta enquesta està tancada",
        "closed_text": "Gràcies pel teu interès. L'enquesta ja no admet respostes.",
        "not_open_text": "L'enquesta encara no s'ha obert. Torna-hi més tard, si us plau.",
        "too_long": "Aquesta resposta és massa llarga: {limit} caràcters com a màxim.",
        "required": "Emplena aquest camp, si us plau.",
        "throttled": (
            "Massa respostes des d'aquesta connexió. El teu text continua aquí: espera un minut "
            "i torna a enviar-lo."
        ),
        "optional": "opcional",
    },
}

# EsBBQ Appendix A.2: the optional demographic questions. key -> {language: label}; options
# are key -> {language: label}. "Prefer not to say" is added to every question
# (questionnaire.PREFER_NOT). A question without options takes a short free-text answer.
AGE_BANDS = ("18-24", "25-34", "35-44", "45-54", "55-64", "65+")
YES_NO = [
    ("yes", {"en": "Yes", "hi": "हाँ", "es": "Sí", "ca": "Sí"}),
    ("no", {"en": "No", "hi": "नहीं", "es": "No", "ca": "No"}),
]


def _question(key: str, labels: dict[str, str], options: list | None = None) -> dict:
    return {
        "key": key,
        "labels": dict(labels),
        "options": [{"key": k, "labels": dict(v)} for k, v in options or []],
    }


DEFAULT_DEMOGRAPHICS: list[dict] = [
    _question(
        "age",
        {"en": "Age", "hi": "आयु", "es": "Edad", "ca": "Edat"},
        [(k, {"en": k, "hi": k, "es": k, "ca": k}) for k in AGE_BANDS],
    ),
    _question(
        "region_birth",
        {
            "en": "Region of birth",
            "hi": "जन्म का क्षेत्र",
            "es": "Región de nacimiento",
            "ca": "Regió de naixement",
        },
    ),
    _question(
        "region_residence",
        {
            "en": "Region of residence",
            "hi": "निवास का क्षेत्र",
            "es": "Región de residencia",
            "ca": "Regió de residència",
        },
    ),
    _question(
        "gender",
        {"en": "Gender", "hi": "लिंग", "es": "Género", "ca": "Gènere"},
        [
            ("woman", {"en": "Woman", "hi": "महिला", "es": "Mujer", "ca": "Dona"}),
            ("man", {"en": "Man", "hi": "पुरुष", "es": "Hombre", "ca": "Home"}),
            (
                "non_binary",
                {"en": "Non-binary", "hi": "नॉन-बाइनरी", "es": "No binario", "ca": "No binari"},
            ),
            ("other", {"en": "Other", "hi": "अन्य", "es": "Otro", "ca": "Altre"}),
        ],
    ),
    _question(
        "ethnicity",
        {"en": "Ethnicity", "hi": "नृजातीय पहचान", "es": "Origen étnico", "ca": "Origen ètnic"},
    ),
    _question("religion", {"en": "Religion", "hi": "धर्म", "es": "Religión", "ca": "Religió"}),
    _question(
        "lgbtqia",
        {
            "en": "Are you a member of the LGBTQIA+ community?",
            "hi": "क्या आप एलजीबीटीक्यूआईए+ समुदाय के सदस्य हैं?",
            "es": "¿Formas parte del colectivo LGTBIQA+?",
            "ca": "Formes part del col·lectiu LGTBIQA+?",
        },
        YES_NO,
    ),
    _question(
        "disability",
        {
            "en": "Do you have a disability?",
            "hi": "क्या आपको कोई विकलांगता है?",
            "es": "¿Tienes alguna discapacidad?",
            "ca": "Tens alguna discapacitat?",
        },
        YES_NO,
    ),
    _question(
        "discriminated_group",
        {
            "en": "Do you belong to a group that is discriminated against?",
            "hi": "क्या आप किसी ऐसे समूह से हैं जिसके साथ भेदभाव होता है?",
            "es": "¿Perteneces a algún grupo que sufre discriminación?",
            "ca": "Pertanys a algun grup que pateix discriminació?",
        },
        YES_NO,
    ),
    _question(
        "education",
        {
            "en": "Highest level of education",
            "hi": "आपकी सबसे ऊँची शिक्षा",
            "es": "Nivel de estudios más alto",
            "ca": "Nivell d'estudis més alt",
        },
        [
            (
                "none",
                {
                    "en": "No formal education",
                    "hi": "कोई औपचारिक शिक्षा नहीं",
                    "es": "Sin estudios formales",
                    "ca": "Sense estudis formals",
                },
            ),
            ("primary", {"en": "Primary", "hi": "प्राथमिक", "es": "Primaria", "ca": "Primària"}),
            (
                "secondary",
                {"en": "Secondary", "hi": "माध्यमिक", "es": "Secundaria", "ca": "Secundària"},
            ),
            (
                "undergraduate",
                {
                    "en": "Undergraduate degree",
                    "hi": "स्नातक",
                    "es": "Grado universitario",
                    "ca": "Grau universitari",
                },
            ),
            (
                "postgraduate",
                {
                    "en": "Postgraduate degree",
                    "hi": "स्नातकोत्तर",
                    "es": "Posgrado",
                    "ca": "Postgrau",
                },
            ),
        ],
    ),
    _question(
        "income",
        {
            "en": "Monthly income",
            "hi": "मासिक आय",
            "es": "Ingresos mensuales",
            "ca": "Ingressos mensuals",
        },
        [
            ("low", {"en": "Low", "hi": "कम", "es": "Bajos", "ca": "Baixos"}),
            ("middle", {"en": "Middle", "hi": "मध्यम", "es": "Medios", "ca": "Mitjans"}),
            ("high", {"en": "High", "hi": "अधिक", "es": "Altos", "ca": "Alts"}),
        ],
    ),
]
