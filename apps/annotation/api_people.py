"""Annotation API for managing annotators (researchers): list, create (with an invitation),
change languages, activate and deactivate."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.accounts.permissions import IsResearcher

from . import selectors, services

User = get_user_model()


class AnnotatorOutput(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()
    email = serializers.CharField()
    is_active = serializers.BooleanField()
    languages = serializers.SerializerMethodField()

    def get_languages(self, user) -> list[str]:
        return selectors.annotator_languages(user=user)


class AnnotatorListApi(APIView):
    permission_classes = [IsResearcher]

    @extend_schema_serializer(component_name="AnnotatorListInput")
    class InputSerializer(serializers.Serializer):
        username = serializers.CharField(max_length=150)
        email = serializers.EmailField(required=False, default="")
        languages = serializers.ListField(child=serializers.CharField(max_length=16))
        password = serializers.CharField(required=False, default=None, min_length=8)
        invite = serializers.BooleanField(
            required=False, default=False, help_text="E-mail a link that sets the password."
        )

    @extend_schema(responses=AnnotatorOutput(many=True))
    def get(self, request):
        users = User.objects.filter(groups__name="annotator").order_by("username")
        return Response(AnnotatorOutput(users, many=True).data)

    @extend_schema(request=InputSerializer, responses={201: AnnotatorOutput})
    def post(self, request):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        fields = dict(data.validated_data)
        invite = fields.pop("invite")
        base_url = request.build_absolute_uri("/").rstrip("/") if invite else None
        user = services.annotator_create(invite_base_url=base_url, **fields)
        return Response(AnnotatorOutput(user).data, status=status.HTTP_201_CREATED)


class AnnotatorDetailApi(APIView):
    permission_classes = [IsResearcher]

    @extend_schema_serializer(component_name="AnnotatorDetailInput")
    class InputSerializer(serializers.Serializer):
        languages = serializers.ListField(
            child=serializers.CharField(max_length=16), required=False
        )
        is_active = serializers.BooleanField(required=False)

    @extend_schema(request=InputSerializer, responses=AnnotatorOutput)
    def patch(self, request, pk: int):
        user = get_object_or_404(User, pk=pk, groups__name="annotator")
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        services.annotator_update(
            user=user,
            languages=data.validated_data.get("languages"),
            active=data.validated_data.get("is_active"),
        )
        return Response(AnnotatorOutput(user).data)
