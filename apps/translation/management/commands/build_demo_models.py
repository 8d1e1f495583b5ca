"""Build tiny random-weight IndicTrans2-shaped models so the pipeline runs end to end without
the real checkpoints. Their output is gibberish."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand

from apps.translation.models import DEMO_VERSION
from worker.engines.translator import VERSION_FILE


class Command(BaseCommand):
    help = (
        "Write tiny RANDOM-WEIGHT IndicTrans2-shaped CTranslate2 models into the configured model "
        "directories (or --output DIR/{indictrans2-en-indic,indictrans2-indic-en}). For trying "
        "the translation pipeline only: the translations are gibberish."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--output", type=Path, help="Parent directory for both models.")
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument(
            "--if-missing",
            action="store_true",
            help="Do nothing for a direction whose model directory already holds a model.",
        )

    def handle(
        self, *args, output: Path | None = None, seed: int = 0, if_missing: bool = False, **options
    ) -> None:
        from worker.engines.tiny import build_tiny_indictrans2

        if output is not None:
            targets = {
                "en-indic": output / "indictrans2-en-indic",
                "indic-en": output / "indictrans2-indic-en",
            }
        else:
            targets = {
                "en-indic": Path(settings.KASAUTI_MODELS["indictrans2_en_indic"]),
                "indic-en": Path(settings.KASAUTI_MODELS["indictrans2_indic_en"]),
            }
        if if_missing:
            targets = {d: p for d, p in targets.items() if not (p / "model.bin").is_file()}
            if not targets:
                self.stdout.write("Translation models are present; nothing to build.")
                return
        for direction, path in targets.items():
            if (path / "model.bin").is_file() and not (path / VERSION_FILE).is_file():
                self.stderr.write(f"refusing to overwrite {path}: it holds a real model")
                raise SystemExit(1)
            # eos_bias keeps random decoders from running to the maximum length.
            build_tiny_indictrans2(path, direction, eos_bias=4.0, seed=seed)
            (path / VERSION_FILE).write_text(f"{DEMO_VERSION}-{direction}-seed{seed}\n")
            self.stdout.write(f"wrote {direction} demo model to {path}")
        self.stdout.write(
            self.style.WARNING(
                "These are RANDOM-WEIGHT models: translations will be gibberish and most strings "
                "will be flagged. Use them to try the pipeline; see README.md#getting-the-model-"
                "weights for the real IndicTrans2 checkpoints."
            )
        )
        if output is not None:
            self.stdout.write(
                "Point the worker at them with KASAUTI_INDICTRANS2_EN_INDIC_DIR="
                f"{targets['en-indic']} KASAUTI_INDICTRANS2_INDIC_EN_DIR={targets['indic-en']}"
            )
