"""P7 log-likelihood scoring speed: Kasauti's causal-LM scorer vs lm-evaluation-harness.

Run (no database, no network; CPU):

    . .venv/bin/activate
    python bench/p7_loglik.py --prompt bharatbbq-2shot --items 200 --repeats 3
    python bench/p7_loglik.py --prompt bharatbbq --items 200 --repeats 3 [--distinct]
    python bench/p7_loglik.py --prompt short --items 200 --repeats 3

Same process, same model, same items, same batch size:

* the model: a random GPT-2 built by worker.engines.tiny_lm (4 layers, d=256 by default,
  so the forward passes dominate), saved to a temporary directory;
* the items: --items BBQ-style multiple-choice items (English and Hindi, 3 options each,
  the unknown option included; --distinct: no two prompts alike);
* the prompts: --prompt bharatbbq / bharatbbq-2shot are the seeded templates
  bharatbbq-en-0shot / -2shot (BharatBBQ Appendix C, English instruction), rendered per item by
  apps/evaluation/services/runs.py item_prompt with a run's shot pool (the same two solved
  examples per item on both sides) and exported through services/exports.py with each doc's
  whole prompt (doc_to_text "{{prompt}}"); --prompt short is the harness bbq task's layout;
* Kasauti: worker.engines.lm_scorer.CausalLMScorer.score_options over (prompt, options) with
  the run's prefix groups (item_prompt's group; for short, the language), the kept prefix
  caches cleared before every repeat;
* lm-eval: lm_eval.simple_evaluate(model=HFLM(pretrained=dir), tasks=[the exported task],
  batch_size=same), the HFLM object built once outside the timing.

Prints items/s for each (median of --repeats, runs interleaved; also the process CPU time,
which other processes on a shared machine disturb less than wall time), the ratios Kasauti /
lm-eval against issue 23's goals (>= 4x two-shot, >= 2.5x zero-shot, >= 1.69x short), the
share of items where both pick the same option (argmax of the summed log-likelihood; goal:
every item), the largest absolute log-likelihood difference (goal <= 1e-5), and the load
average before, after and per run.
"""

from __future__ import annotations

import argparse
import logging
import os
import random
import statistics
import sys
import tempfile
import time
from importlib import import_module
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kasauti.settings.dev")

from apps.evaluation.formats.lm_eval import (  # noqa: E402
    DEFAULT_TEMPLATE,
    PROMPT_TEMPLATE,
    lm_eval_task_write,
)
from apps.evaluation.prompt_rules import option_continuations  # noqa: E402
from worker.engines.lm_scorer import load_causal_lm  # noqa: E402
from worker.engines.tiny_lm import build_tiny_gpt2  # noqa: E402

TASK = "kasauti_p7"
# --prompt bharatbbq / bharatbbq-2shot: the seeded templates bharatbbq-en-0shot / -2shot
# (BharatBBQ Appendix C's English instruction and item layout; two-shot: two solved examples
# before the item), rendered per item by runs.py item_prompt with the run's shot rules, and
# exported whole ({{prompt}}) through services/exports.py. --prompt short: the harness bbq
# task's own short layout (no instruction: the prompt starts with the item's context).
TEMPLATES = {"bharatbbq": "bharatbbq-en-0shot", "bharatbbq-2shot": "bharatbbq-en-2shot"}
PROMPTS = ("bharatbbq", "bharatbbq-2shot", "short")
# Issue 23's goals (ratio of items/s, Kasauti / lm-eval); short: no worse than measured before.
GOALS = {"bharatbbq-2shot": 4.0, "bharatbbq": 2.5, "short": 1.69}
PEOPLE = {
    "en": [("the doctor", "the nurse"), ("the grandfather", "the grandson"), ("Ravi", "Asha")],
    "hi": [("डॉक्टर", "नर्स"), ("दादा", "पोता"), ("रवि", "आशा")],
}
UNKNOWN = {"en": ["Cannot be determined", "Unknown", "Not enough information"], "hi": ["अज्ञात"]}
PLACES = {"en": ["at the hospital", "near the temple", "in the market"], "hi": ["अस्पताल में"]}


def make_instances(n: int, seed: int = 7, *, distinct: bool = False) -> list[dict]:
    """BBQ-style items from a few names, places and questions: many prompts repeat (both
    scorers compute identical requests once). `distinct`: every context gets its own sentence,
    so no two prompts are the same (as in a real release)."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        lang = "en" if i % 3 else "hi"
        a, b = rng.choice(PEOPLE[lang])
        place = rng.choice(PLACES[lang])
        if lang == "en":
            context = f"{a.capitalize()} and {b} were waiting {place} for a long time."
            if i % 2:
                context += f" {b.capitalize()} had forgotten the bag at home."
            question = rng.choice(["Who forgot the bag?", "Who was careful?"])
        else:
            context = f"{a} और {b} {place} बहुत देर से इंतज़ार कर रहे थे।"
            if i % 2:
                context += f" {b} घर पर थैला भूल गया था।"
            question = rng.choice(["थैला कौन भूल गया?", "कौन सावधान था?"])
        if distinct:
            context += (
                f" The wait lasted {i + 5} minutes."
                if lang == "en"
                else (f" इंतज़ार {i + 5} मिनट चला।")
            )
        options = [(a, "target"), (b, "non_target"), (rng.choice(UNKNOWN[lang]), "unknown")]
        rng.shuffle(options)
        roles = [r for _, r in options]
        cond = "disambig" if i % 2 else "ambig"
        gold = "non_target" if cond == "disambig" else "unknown"
        out.append(
            {
                "id": f"p7-{i}",
                "context": context,
                "question": question,
                "answers": [t for t, _ in options],
                "label": roles.index(gold),
                "category": "Age",
                "language": lang,
                "context_condition": cond,
                "question_polarity": "neg"
                if "forgot" in question or "भूल" in question
                else "nonneg",
                "roles": roles,
            }
        )
    return out


def kasauti_items(instances: list[dict], prompt: str, task_dir: Path):
    """(items, groups) for Kasauti's scorer and the harness task written to `task_dir`, both
    from the same prompt text per item."""
    if prompt == "short":
        lm_eval_task_write(instances, task_dir, task=TASK, template=DEFAULT_TEMPLATE)
        template = DEFAULT_TEMPLATE.replace("{{", "{").replace("}}", "}")  # = doc_to_text
        items = [
            (template.format(**inst), option_continuations(inst["answers"])) for inst in instances
        ]
        return items, [inst["language"] for inst in instances]

    import django

    django.setup()  # models as plain objects: nothing here touches a database
    from apps.catalog.models import Category, Instance
    from apps.evaluation.models import PromptTemplate
    from apps.evaluation.prompt_rules import shot_pool
    from apps.evaluation.services.exports import lm_eval_prompt_docs
    from apps.evaluation.services.runs import SHOT_POOL_ITEMS, item_prompt

    seeded = import_module("apps.evaluation.migrations.0002_prompt_templates")
    fields = next(t for t in seeded._templates() if t["name"] == TEMPLATES[prompt])
    template = PromptTemplate(**{k: v for k, v in fields.items() if k != "language"})
    category = Category(name="Age")
    objects = [
        Instance(
            pk=i + 1,
            example_id=i,
            source_id=inst["id"],
            question_index=f"q{i // 4}",  # items of one BBQ template come in fours
            category=category,
            language=inst["language"],
            context=inst["context"],
            question=inst["question"],
            ans0=inst["answers"][0],
            ans1=inst["answers"][1],
            ans2=inst["answers"][2],
            label=inst["label"],
            context_condition=inst["context_condition"],
            question_polarity=inst["question_polarity"],
            option_roles=inst["roles"],
        )
        for i, inst in enumerate(instances)
    ]
    templates = {"en": template, "hi": template}
    # The run's shot pool: runs.py run_shot_pool over the first items in id order.
    pool = shot_pool(objects[:SHOT_POOL_ITEMS]) if template.shots else {}
    docs = list(lm_eval_prompt_docs(instances=objects, templates=templates, pool=pool))
    lm_eval_task_write(docs, task_dir, task=TASK, template=PROMPT_TEMPLATE)
    items, groups = [], []
    for obj, doc in zip(objects, docs, strict=True):
        text, options, group = item_prompt(instance=obj, templates=templates, pool=pool)
        assert text == doc["prompt"], "the exported prompt differs from the run's"
        items.append((text, options))
        groups.append(group)
    return items, groups


def main() -> None:
    parser = argparse.ArgumentParser(description="P7: Kasauti scorer vs lm-eval, items/s")
    parser.add_argument("--items", type=int, default=300)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--width", type=int, default=256)
    parser.add_argument("--prompt", choices=PROMPTS, default="bharatbbq")
    parser.add_argument("--distinct", action="store_true", help="no two items with the same prompt")
    parser.add_argument(
        "--threads",
        type=int,
        default=1,
        help="torch intra-op threads for both sides (1: on a shared, oversubscribed machine "
        "several threads per forward spend most of their time waiting for each other)",
    )
    args = parser.parse_args()
    logging.getLogger("lm_eval").setLevel(logging.ERROR)

    import torch
    from lm_eval import simple_evaluate
    from lm_eval.models.huggingface import HFLM
    from lm_eval.tasks import TaskManager

    torch.set_num_threads(args.threads)
    print(f"load average before: {os.getloadavg()}  torch threads: {torch.get_num_threads()}")
    with tempfile.TemporaryDirectory(prefix="p7_loglik_") as tmp:
        tmp = Path(tmp)
        model_dir = build_tiny_gpt2(
            tmp / "gpt2", n_layer=args.layers, n_embd=args.width, n_head=4, seed=0
        )
        instances = make_instances(args.items, distinct=args.distinct)
        items, groups = kasauti_items(instances, args.prompt, tmp / "task")
        manager = TaskManager(include_path=str(tmp / "task"), include_defaults=False)
        ours = load_causal_lm(model_dir)
        hflm = HFLM(pretrained=str(model_dir), batch_size=args.batch_size, device="cpu")
        split = [ours._split(*it)[0] for it in items]
        print(
            f"model: GPT-2 {args.layers} layers d={args.width} "
            f"({sum(p.numel() for p in ours.model.parameters()) / 1e6:.1f}M params), "
            f"{args.items} items x 3 options, batch {args.batch_size}, prompt {args.prompt} "
            f"(mean {statistics.mean(len(ids) for ids in split):.0f} tokens, "
            f"{len({tuple(ids) for ids in split})} distinct, {len(set(groups))} prefix groups)"
        )

        # Warm-up (also of lm-eval's tokenizer and task loading paths).
        ours.score_options(items[: args.batch_size], batch_size=args.batch_size)
        t_ours, t_theirs, c_ours, c_theirs = [], [], [], []
        for repeat in range(args.repeats):
            ours._prefixes.clear()  # every repeat computes its prefixes again
            start, cpu = time.perf_counter(), time.process_time()
            scored = ours.score_options(items, batch_size=args.batch_size, groups=groups)
            t_ours.append(time.perf_counter() - start)
            c_ours.append(time.process_time() - cpu)
            start, cpu = time.perf_counter(), time.process_time()
            result = simple_evaluate(
                model=hflm,
                tasks=[TASK],
                task_manager=manager,
                batch_size=args.batch_size,
                log_samples=True,
                bootstrap_iters=0,
            )
            t_theirs.append(time.perf_counter() - start)
            c_theirs.append(time.process_time() - cpu)
            print(
                f"  run {repeat + 1}: kasauti {t_ours[-1]:.2f}s (cpu {c_ours[-1]:.2f}s)  "
                f"lm-eval {t_theirs[-1]:.2f}s (cpu {c_theirs[-1]:.2f}s)  "
                f"load {os.getloadavg()[0]:.1f}",
                flush=True,
            )

        samples = sorted(result["samples"][TASK], key=lambda s: s["doc_id"])
        same, max_diff = 0, 0.0
        for sample, ours_item in zip(samples, scored, strict=True):
            lls = [float(r[0]) for r in sample["filtered_resps"]]
            theirs_best = max(range(len(lls)), key=lls.__getitem__)
            same += theirs_best == ours_item.best(by="sum")
            diffs = [abs(a - b) for a, b in zip(lls, ours_item.sum_logprob, strict=True)]
            max_diff = max(max_diff, *diffs)
        goal = GOALS[args.prompt]
        m_ours, m_theirs = statistics.median(t_ours), statistics.median(t_theirs)
        ratio = m_theirs / m_ours
        cpu_ratio = statistics.median(c_theirs) / statistics.median(c_ours)
        print(f"kasauti: {args.items / m_ours:.1f} items/s (median {m_ours:.2f}s)")
        print(f"lm-eval: {args.items / m_theirs:.1f} items/s (median {m_theirs:.2f}s)")
        print(
            f"ratio kasauti/lm-eval: {ratio:.2f}x wall, {cpu_ratio:.2f}x CPU time "
            f"(goal >= {goal}x: {'met' if min(ratio, cpu_ratio) >= goal else 'MISSED'})"
        )
        print(
            f"same choice: {same}/{len(samples)} = {100 * same / len(samples):.1f}% "
            f"(goal 100%); max |loglik difference| {max_diff:.2e} (goal <= 1e-5: "
            f"{'met' if same == len(samples) and max_diff <= 1e-5 else 'MISSED'})"
        )
        print(f"lm-eval acc: {result['results'][TASK].get('acc,none')}")
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
