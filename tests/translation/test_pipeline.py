"""The pure parts: splitting contexts, unique strings, chunking, the option check."""

from __future__ import annotations

from apps.translation import pipeline


def test_disambiguated_context_splits_off_the_shared_ambiguous_part():
    ambiguous = "A doctor and a nurse were waiting."
    context = ambiguous + " The doctor was late."
    assert pipeline.split_context(context, ambiguous) == [ambiguous, "The doctor was late."]
    # Not an extension of the ambiguous context (e.g. imported data): translated whole.
    assert pipeline.split_context("Something else.", ambiguous) == ["Something else."]
    assert pipeline.split_context(ambiguous, ambiguous) == [ambiguous]
    assert pipeline.split_context(context, None) == [context]
    assert pipeline.join_context(["Ek.", "Do."]) == "Ek. Do."


def test_unique_strings_keep_first_seen_order_and_drop_blanks():
    groups = [("a", "b", "a"), ("", "c", "b"), ("  ",)]
    assert pipeline.unique_strings(groups) == ["a", "b", "c"]


def test_chunks_are_length_sorted_and_bounded():
    texts = ["ccc", "a", "bb", "dddd", "ee"]
    chunks = pipeline.chunk_texts(texts, 2)
    assert chunks == [["a", "bb"], ["ee", "ccc"], ["dddd"]]
    assert sorted(t for chunk in chunks for t in chunk) == sorted(texts)


def test_option_check_passes_when_translated_options_appear():
    assert (
        pipeline.option_mismatches(
            english_context="A doctor and a nurse met. The doctor was late.",
            english_answers=["The doctor", "Cannot be determined", "The nurse"],
            roles=["stereotyped", "unknown", "non_stereotyped"],
            translated_context="एक डॉक्टर और एक नर्स मिले। डॉक्टर देर से आया।",
            translated_answers=["डॉक्टर।", "निर्धारित नहीं किया जा सकता", "नर्स"],
        )
        == []
    )


def test_option_check_reports_a_missing_option_but_ignores_unknown():
    reasons = pipeline.option_mismatches(
        english_context="A doctor and a nurse met. The doctor was late.",
        english_answers=["The doctor", "Cannot be determined", "The nurse"],
        roles=["stereotyped", "unknown", "non_stereotyped"],
        translated_context="एक डॉक्टर और एक परिचारिका मिले।",
        translated_answers=["डॉक्टर", "कहा नहीं जा सकता", "नर्स"],
    )
    assert len(reasons) == 1
    assert "'नर्स'" in reasons[0] and "'The nurse'" in reasons[0]


def test_option_check_skips_options_absent_from_the_english_context():
    # An option the English context never names cannot be required in the translation.
    assert (
        pipeline.option_mismatches(
            english_context="Two people met.",
            english_answers=["The doctor", "Unknown", "The nurse"],
            roles=["stereotyped", "unknown", "non_stereotyped"],
            translated_context="दो लोग मिले।",
            translated_answers=["डॉक्टर", "अज्ञात", "नर्स"],
        )
        == []
    )


def test_low_similarity_reason_reads_well():
    assert pipeline.low_similarity_reason(0.6234, 0.75) == "low similarity 0.62 < 0.75"
