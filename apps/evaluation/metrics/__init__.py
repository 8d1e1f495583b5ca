"""Evaluation metrics as plain Python (no Django, no apps.*): BBQ-style scores (bbq), CrowS-Pairs
(crows), SEAT (seat), IndiCASA (indicasa). Inputs are dataclasses / dicts, outputs plain dicts."""
