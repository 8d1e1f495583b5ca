"""Catalog REST API: the benchmark kinds not generated from templates (sentence pairs,
stereotype tuples, context sets), read only: the importers write them.
"""

from __future__ import annotations

from rest_framework import generics, serializers

from apps.accounts.permissions import ResearcherOrReadOnly

from . import selectors
from .models import (
    ContextSentence,
    ContextSet,
    SentencePair,
    StereotypeTuple,
)

# --- other benchmark kinds (read; they are written by the importers) ------------------------


class SentencePairOutput(serializers.ModelSerializer):
    dataset = serializers.SlugRelatedField(slug_field="name", read_only=True)
    category = serializers.SlugRelatedField(slug_field="name", read_only=True)

    class Meta:
        model = SentencePair
        fields = [
            "id",
            "dataset",
            "external_id",
            "category",
            "language",
            "sent_more",
            "sent_less",
            "direction",
            "target_group",
            "parallel",
            "origin",
        ]


class SentencePairListApi(generics.ListAPIView):
    permission_classes = [ResearcherOrReadOnly]
    queryset = SentencePair.objects.select_related("dataset", "category")
    serializer_class = SentencePairOutput
    filterset_class = selectors.SentencePairFilter


class TupleOutput(serializers.ModelSerializer):
    dataset = serializers.SlugRelatedField(slug_field="name", read_only=True)
    category = serializers.SlugRelatedField(slug_field="name", read_only=True)

    class Meta:
        model = StereotypeTuple
        fields = [
            "id",
            "dataset",
            "category",
            "language",
            "identity_term",
            "attribute",
            "polarity",
            "votes",
            "votes_source",
            "imported_votes",
            "origin",
        ]


class TupleListApi(generics.ListAPIView):
    permission_classes = [ResearcherOrReadOnly]
    queryset = StereotypeTuple.objects.select_related("dataset", "category")
    serializer_class = TupleOutput
    filterset_class = selectors.TupleFilter


class ContextSentenceOutput(serializers.ModelSerializer):
    class Meta:
        model = ContextSentence
        # The review state is the last sentence-review decision (tier and keep/fix/drop).
        fields = ["kind", "text", "position", "review_tier", "review_decision", "reviewed_at"]


class ContextSetOutput(serializers.ModelSerializer):
    dataset = serializers.SlugRelatedField(slug_field="name", read_only=True)
    category = serializers.SlugRelatedField(slug_field="name", read_only=True)
    sentences = ContextSentenceOutput(many=True, read_only=True)

    class Meta:
        model = ContextSet
        fields = [
            "id",
            "dataset",
            "external_id",
            "category",
            "language",
            "context",
            "target_group",
            "sentences",
            "origin",
        ]


class ContextSetListApi(generics.ListAPIView):
    permission_classes = [ResearcherOrReadOnly]
    queryset = ContextSet.objects.select_related("dataset", "category").prefetch_related(
        "sentences"
    )
    serializer_class = ContextSetOutput
    filterset_class = selectors.ContextSetFilter
