"""Evaluation services, one module per job: `lifecycle` (what every run kind shares: create a
run with its job, its work, store its results), `runs` (BBQ-style multiple-choice runs),
`imports` (predictions made elsewhere), `metrics` (BBQ metrics of a run), `models` (the model
registry), `prompts` (templates -> prompts), `exports` (downloads), and the bias runs `crows`,
`seat`, `indicasa`. What differs between run kinds is in apps/evaluation/kinds.py. Import from
the modules themselves."""
