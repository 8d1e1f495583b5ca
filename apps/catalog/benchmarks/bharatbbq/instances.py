"""BharatBBQ's published instances: `Examples/<Category>_examples.csv` (format
"bharatbbq-instances")."""

from __future__ import annotations

from apps.catalog.importers.layout_csv import CsvFormat
from apps.catalog.importers.layouts import (
    InstanceFileReader,
    RowError,
    Values,
    mislabel_finding,
    row_choice,
    row_int,
)
from apps.catalog.models import ContextCondition, NounForm, OptionRole, Pairing, QuestionPolarity
from apps.core.text import nfc

# The generator draws the unknown option from these phrases (create_examples.ipynb).
from .generator import UNKNOWN_ANSWERS


class BharatBbqCsvFormat(CsvFormat):
    """Qid,Context_type,Context,Question,Question_polarity,Option1,Option2,Option3,Options,
    Label,Target,Pairing,Proper_Noun,Category,id (Label and Target count options from 1)."""

    format = "bharatbbq-instances"
    language = "en"
    required = (
        "Qid",
        "Context_type",
        "Context",
        "Question",
        "Question_polarity",
        "Option1",
        "Option2",
        "Option3",
        "Label",
        "Target",
        "Pairing",
        "Proper_Noun",
        "Category",
        "id",
    )
    # Options is the repr of the three options, so it is written from them, not stored.
    mapped = frozenset(required) - {"Target"} | {"Options"}
    CONDITIONS = {"amb": ContextCondition.AMBIGUOUS.value, "disamb": "disambig"}
    POLARITIES = {"neg": QuestionPolarity.NEGATIVE.value, "non-neg": "nonneg"}
    PAIRINGS = {"biased": Pairing.STEREOTYPICAL.value, "anti": Pairing.ANTI_STEREOTYPICAL.value}
    NOUN_FORMS = {
        "0": NounForm.COMMON_NOUN.value,
        "1": NounForm.PROPER_NAME.value,
        "2": NounForm.GROUP_LABEL.value,
    }

    def parse_row(self, cells: dict[str, str]) -> Values:
        label = row_int(cells["Label"], "Label")
        target = row_int(cells["Target"], "Target")
        if not 1 <= label <= 3:
            raise RowError("Label", f"expected 1, 2 or 3, got {label}")
        if not 1 <= target <= 3:
            raise RowError("Target", f"expected 1, 2 or 3, got {target}")
        options = [nfc(cells[f"Option{i}"]) for i in (1, 2, 3)]
        condition = row_choice(cells["Context_type"], self.CONDITIONS, "Context_type")
        roles, finding = self._roles(options, target - 1, condition, label - 1)
        for name in ("Qid", "Category"):
            if not cells[name].strip() or len(cells[name]) > 100:
                raise RowError(name, f"invalid value {cells[name]!r}")
        noun_form = row_choice(cells["Proper_Noun"], self.NOUN_FORMS, "Proper_Noun")
        polarity = row_choice(cells["Question_polarity"], self.POLARITIES, "Question_polarity")
        pairing = row_choice(cells["Pairing"], self.PAIRINGS, "Pairing")
        mislabel = mislabel_finding(
            condition=condition,
            polarity=polarity,
            roles=roles,
            label=label - 1,
            pairing=pairing,
            clear=finding is None,
            field_name="Pairing",
            stated=cells["Pairing"],
        )
        return {
            "example_id": row_int(cells["id"], "id"),
            "source_id": cells["id"],
            "question_index": nfc(cells["Qid"]),
            "category": nfc(cells["Category"]),
            "context_condition": condition,
            "question_polarity": polarity,
            "pairing": pairing,
            "noun_form": noun_form,
            "proper_noun": noun_form == NounForm.PROPER_NAME,
            "context": nfc(cells["Context"]),
            "question": nfc(cells["Question"]),
            "ans0": options[0],
            "ans1": options[1],
            "ans2": options[2],
            "label": label - 1,
            "option_roles": roles,
            "answer_info": {
                f"ans{i}": [options[i], roles[i]] for i in range(3)
            },  # BharatBBQ gives no group labels: the role stands in for one
            "additional_metadata": {},
            "_findings": [f for f in (finding, mislabel) if f],
        }

    def _roles(
        self, options: list[str], target: int, condition: str, label: int
    ) -> tuple[list[str], tuple[str, str, str, str] | None]:
        unknown = [i for i in range(3) if i != target and options[i].casefold() in UNKNOWN_ANSWERS]
        finding = None
        if len(unknown) != 1:
            # An ambiguous context's gold answer is always the unknown option.
            guess = label if condition == ContextCondition.AMBIGUOUS and label != target else None
            if guess is None:
                guess = next(i for i in range(3) if i != target)
            finding = (
                "Option1",
                "option-roles-unclear",
                "none or several of the non-target options is one of BharatBBQ's unknown "
                f"phrases; option {guess + 1} is taken as the unknown one",
                " | ".join(options),
            )
            unknown = [guess]
        roles = [OptionRole.NON_STEREOTYPED.value] * 3
        roles[target] = OptionRole.STEREOTYPED.value
        roles[unknown[0]] = OptionRole.UNKNOWN.value
        return roles, finding

    def row_cells(self, values: Values) -> dict[str, str]:
        options = [values["ans0"], values["ans1"], values["ans2"]]
        reverse = _REVERSE_BHARAT
        return {
            "Qid": values["question_index"],
            "Context_type": reverse["condition"][values["context_condition"]],
            "Context": values["context"],
            "Question": values["question"],
            "Question_polarity": reverse["polarity"][values["question_polarity"]],
            "Option1": options[0],
            "Option2": options[1],
            "Option3": options[2],
            "Options": repr({f"Option{i + 1}": options[i] for i in range(3)}),
            "Label": str(values["label"] + 1),
            "Pairing": reverse["pairing"][values["pairing"]],
            "Proper_Noun": reverse["noun"].get(values["noun_form"], "0"),
            "Category": values["category"],
            "id": values["source_id"],
        }


_REVERSE_BHARAT = {
    name: {v: k for k, v in mapping.items()}
    for name, mapping in (
        ("condition", BharatBbqCsvFormat.CONDITIONS),
        ("polarity", BharatBbqCsvFormat.POLARITIES),
        ("pairing", BharatBbqCsvFormat.PAIRINGS),
        ("noun", BharatBbqCsvFormat.NOUN_FORMS),
    )
}


class BharatBbqInstancesReader(InstanceFileReader):
    format = "bharatbbq-instances"
    language = "en"
    layouts = {"csv": BharatBbqCsvFormat}


def bharatbbq_instances_detect(file_name: str, first_line: str) -> bool:
    columns = first_line.strip().split(",")
    return not file_name.lower().endswith(".jsonl") and "Qid" in columns and "Option1" in columns
