"""Translation jobs, as modules named for their jobs:

* validation: what a job may ask for (languages, threshold, source);
* sources: collecting the items and their unique strings (instances, pairs, context sets);
* planning: creating a job, skipping cached strings, cutting chunks, queueing them;
* chunks: running one chunk through the engines and storing it;
* progress: progress from the chunk rows, and queueing assembly when the last chunk is done;
* assembly: building the translated items, flagging, finishing the job;
* control: cancel and resume (through core's job system);
* corrections: the human correction queue;
* cache / dispatch: the string cache lookups, and queueing tasks by name.

Crash safety rests on three rules: every write is idempotent (TranslatedString is unique on
(text hash, language, model versions) and written with ON CONFLICT DO NOTHING; translated items
are skipped when they exist; correction items are unique per string / instance); a chunk's
results, its "done" mark and the job's progress are committed in one transaction; and the last
chunk to finish (counted under the job's row lock) queues the assembly, while any redelivered
or resumed task re-checks that count, so a lost message cannot stall a job for good. A dead
worker is noticed by core's heartbeat watchdog, which resumes the job.
"""

from .assembly import translation_job_assemble
from .chunks import ChunkOutcome, translate_texts, translation_chunk_run
from .control import translation_job_cancel, translation_job_requeue, translation_job_resume
from .corrections import correction_item_resolve
from .planning import translation_job_create, translation_job_start
from .sources import SourceCollection, sources_collect, sources_collect_exists
from .validation import languages_validate

__all__ = [
    "ChunkOutcome",
    "SourceCollection",
    "correction_item_resolve",
    "languages_validate",
    "sources_collect",
    "sources_collect_exists",
    "translate_texts",
    "translation_chunk_run",
    "translation_job_assemble",
    "translation_job_cancel",
    "translation_job_create",
    "translation_job_requeue",
    "translation_job_resume",
    "translation_job_start",
]
