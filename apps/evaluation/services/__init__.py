"""Evaluation services, one module per job: `runs` (BBQ-style multiple-choice runs),
`imports` (predictions made elsewhere), `metrics` (BBQ metrics of a run), `models` (the model
registry), `prompts` (templates -> prompts), `exports` (downloads), and evx's `crows`, `seat`,
`indicasa` with their shared `bias_runs`. Import from the modules themselves."""
