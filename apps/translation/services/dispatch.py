"""Queueing the steps of a translation job, by task name through core's task_send (after
commit; an unreachable broker fails the job with the reason). Services never import tasks."""

from __future__ import annotations

from apps.core.services import task_send

from ..models import TranslationJob

START_TASK = "apps.translation.tasks.start_translation_job"
CHUNK_TASK = "apps.translation.tasks.translate_chunk"
ASSEMBLE_TASK = "apps.translation.tasks.assemble_translation_job"


def start_send(*, job: TranslationJob) -> None:
    task_send(job_id=job.core_job_id, name=START_TASK, args_list=[[job.core_job_id]])


def chunks_send(*, job: TranslationJob, chunk_ids: list[int]) -> None:
    task_send(job_id=job.core_job_id, name=CHUNK_TASK, args_list=[[i] for i in chunk_ids])


def assembly_send(*, job: TranslationJob) -> None:
    task_send(job_id=job.core_job_id, name=ASSEMBLE_TASK, args_list=[[job.core_job_id]])
