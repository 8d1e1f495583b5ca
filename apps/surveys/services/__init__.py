"""Survey services, a module per job (import each from its module, not from here):

* surveys: create and edit surveys; versions of the questionnaire; open and close.
* responses: respondents and their answers from the public link; deletion by code.
* imports: Google Forms / Typeform CSV exports into answers (idempotent).
* coding: answers into concepts (or invalid), the history of it, the derived mention counts.
* suggestions: closest concepts by embedding similarity (a background job).
* reports: the funnel, responses over time, demographics with small cells suppressed.
"""
