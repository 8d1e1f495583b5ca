"""EsBBQ / CaBBQ templates (langtech-bsc/EsBBQ-CaBBQ `templates/esbbq_<Cat>*.xlsx`, sheet
"Sheet1"; a CSV export with the same header works too).

Text columns carry a language suffix: `_es` for format esbbq (language "es"), `_ca` for cabbq
(language "ca"). Required: esbbq_template_id (or template_id), esbbq_category (or category),
ambiguous_context_<l>, disambiguating_context_<l>, question_negative_stereotype_<l> (or
question_negative_<l>), question_non_negative_<l>, answer_negative_<l>, answer_non_negative_<l>,
stereotyped_groups. Optional: version, subcategory, label, names_<l>, lexical_diversity_<l>,
relevant_social_values_<l>, non_stereotyped_groups, NAME1_info, NAME2_info,
stated_gender_info, proper_nouns_only, esbbq_source (or source_<l> / source).

As upstream: names_<l> overrides the group lists; without it NAME1 = stereotyped_groups and
NAME2 = non_stereotyped_groups. `NAME1-def`/`NAME1-indef` lists are aligned with the bare list;
a key given only with specifiers gets its bare list by dropping the article. The target is
NAME1 unless the *_info columns put the stereotyped group on NAME2.
"""

from __future__ import annotations

from typing import ClassVar

from .base import Reader
from .records import ParseResult
from .tables import Row, Table, apply_aliases, missing_columns
from .templates import (
    TEXT_FIELDS,
    TemplateDraft,
    derive_bare_lists,
    finish_template,
    notes_text,
    pairing_for,
    read_lists,
    read_texts,
    target_from_groups,
    transformation,
)
from .values import parse_flag, parse_group_list


class EsBbqReader(Reader):
    format = "esbbq"
    template_format = True
    suffix: ClassVar[str] = "es"

    def __init__(self, *, language: str = "en", category: str = "") -> None:
        # The language is the one of the columns read, whatever --language says.
        super().__init__(language=self.suffix, category=category)

    def text_columns(self) -> dict[str, str]:
        return {name: f"{name}_{self.suffix}" for name in TEXT_FIELDS}

    def read_table(self, table: Table, result: ParseResult) -> None:
        s = self.suffix
        apply_aliases(
            table,
            {
                f"question_negative_stereotype_{s}": f"question_negative_{s}",
                "template_id": "esbbq_template_id",
                "category": "esbbq_category",
                "final_stereotyped_groups": "stereotyped_groups",
                f"source_{s}": "esbbq_source",
                "source": "esbbq_source",
                "transformation": "transformation_type",
            },
        )
        required = (
            "esbbq_template_id",
            "esbbq_category",
            *self.text_columns().values(),
            "stereotyped_groups",
        )
        problems = list(missing_columns(table, required))
        if problems:
            result.problems.extend(problems)
            return
        for row in table.rows:
            self.read_row(table, row, result)

    def read_row(self, table: Table, row: Row, result: ParseResult) -> None:
        s = self.suffix
        columns = {
            **self.text_columns(),
            "names": f"names_{s}",
            "lexical": f"lexical_diversity_{s}",
            "subcategory": "subcategory",
        }
        ok = True
        for key in ("esbbq_template_id", "esbbq_category"):
            if not row.get(key):
                result.problem(table.file, row.line, table.label(key), "is empty")
                ok = False
        try:
            proper_noun = parse_flag(row.get("proper_nouns_only"))
        except ValueError as error:
            result.problem(table.file, row.line, table.label("proper_nouns_only"), str(error))
            ok = False
        kind = transformation(row.get("transformation_type"))
        if kind is None:
            result.problem(
                table.file,
                row.line,
                table.label("transformation_type"),
                f"unknown transformation {row.get('transformation_type')!r}",
            )
            ok = False
        placeholders = read_lists(table, row, (f"names_{s}", f"lexical_diversity_{s}"), result)
        if placeholders is None or not ok:
            return
        stereotyped = parse_group_list(row.get("stereotyped_groups"))
        non_stereotyped = parse_group_list(row.get("non_stereotyped_groups"))
        derive_bare_lists(placeholders)
        placeholders.setdefault("NAME1", stereotyped)
        placeholders.setdefault("NAME2", non_stereotyped)
        infos = {
            "NAME1": parse_group_list(row.get("name1_info")),
            "NAME2": parse_group_list(row.get("name2_info")),
        }
        target = target_from_groups({}, infos, stereotyped) or "NAME1"
        texts = read_texts(row, columns)
        category = row.get("esbbq_category")
        template_id = row.get("esbbq_template_id")
        version = row.get("version")
        draft = TemplateDraft(
            table=table,
            row=row,
            columns=columns,
            external_id=f"{category}-{template_id}{version}",
            category=category,
            question_index=template_id,
            variant=version,
            language=self.language,
            texts=texts,
            placeholders=placeholders,
            placeholder_groups={
                axis: [", ".join(infos[axis])] * len(placeholders[axis])
                for axis in ("NAME1", "NAME2")
                if infos[axis] and placeholders[axis]
            },
            target_placeholder=target,
            pairing=pairing_for(texts, target),
            id_column="esbbq_template_id",
            extra={
                "proper_noun": proper_noun,
                "stereotyped_groups": stereotyped,
                "non_stereotyped_groups": non_stereotyped,
                "subcategory": row.get("subcategory"),
                "transformation_type": kind,
                "transformation_reason": row.get("transformation_reason"),
                "source": "\n".join(parse_group_list(row.get("esbbq_source"))),
                "notes": notes_text(
                    {
                        table.label(key): row.get(key)
                        for key in (f"relevant_social_values_{s}", "stated_gender_info", "label")
                    }
                ),
            },
        )
        finish_template(draft, result)


class CaBbqReader(EsBbqReader):
    format = "cabbq"
    suffix = "ca"
