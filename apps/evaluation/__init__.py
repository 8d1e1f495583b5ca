"""Evaluation: models measured on benchmark releases (BBQ-style QA, CrowS-Pairs, SEAT, IndiCASA).

Layer 6 (docs/architecture.md): it may import catalog, releases, core, accounts and worker;
nothing imports it. Metric formulas live in `apps.evaluation.metrics`, plain Python."""
