"""``--use_cache`` for our models: answers keyed by what the model hears, and only real answers kept.

lm-eval's ``CachingLM`` keys a request by the JSON of its arguments. For an audio request that is the clip's path
(or a failure, for decoded samples), and it misses the ``audio=`` condition, which lives in the model: the same
path under ``audio=none`` would get the full clip's answer. lm-eval has no hook for the key, so the patch of
``lm_eval.api.model`` puts a subclass, :class:`AudioCachingLM`, where ``simple_evaluate`` looks the class up. For
our models it

* keys each request by its arguments with every audio reference replaced by its content digest
  (``audio.refs.cache_key_args``) and, under an ablation, the condition, hashed by lm-eval's own ``hash_args``;
  the same keys serve the answers our wrappers store as they go (``cache_hook.add_partial``), so a run killed
  midway resumes;
* keeps an answer that failed for good (``model_wrappers.failed_requests``) out of the cache, so a re-run asks
  again;
* moves an unreadable cache file aside, with a warning, before lm-eval opens it (SqliteDict fails on it).

For every other model it is lm-eval's ``CachingLM``, unchanged; with the plugin off it steps aside too.
"""

from __future__ import annotations

from lm_eval_audio.harness.status import active
from lm_eval_audio.model_wrappers.registry import is_ours

REQUEST_METHODS = ("loglikelihood", "loglikelihood_rolling", "generate_until")


def request_key(hash_args, attr: str, args, condition) -> str:
    """The cache key of one request of ours: lm-eval's ``hash_args`` over the arguments with each audio reference
    as its content digest, and the condition unless the model hears the audio as it is."""
    from lm_eval_audio.audio.refs import cache_key_args

    key_args = cache_key_args(args)
    label = str(condition or "full")
    if label != "full":
        key_args = [*key_args, {"lm_eval_audio_condition": label}]
    return hash_args(attr, key_args)


def on_api_model(module) -> None:
    base_lm, base_hook, hash_args, lm_eval_log = module.CachingLM, module.CacheHook, module.hash_args, module.eval_logger
    if getattr(base_lm, "_lm_eval_audio", False):
        return

    class KeyedCacheHook(base_hook):
        """What our wrappers store as they go, under the same keys as :class:`AudioCachingLM` looks up."""

        def __init__(self, caching_lm) -> None:
            super().__init__(caching_lm)
            self._model = caching_lm.lm

        def add_partial(self, attr, req, res) -> None:
            from lm_eval_audio.model_wrappers.failed_requests import holds_failure

            # a failed answer (or a conversation with a failed round) is asked again by a re-run
            if self.dbdict is not None and not holds_failure(res):
                self.dbdict[request_key(hash_args, attr, req, getattr(self._model, "audio_condition", None))] = res

    class AudioCachingLM(base_lm):
        _lm_eval_audio = True

        def __init__(self, lm, cache_db: str) -> None:
            if active() and is_ours(lm):
                from lm_eval_audio.storage.text_store import set_aside_unreadable, sqlite_problem

                problem = sqlite_problem(cache_db)
                if problem is not None:
                    set_aside_unreadable(cache_db, "the --use_cache database", problem)
            super().__init__(lm, cache_db)

        def get_cache_hook(self):
            if active() and is_ours(self.lm):
                return KeyedCacheHook(self)
            return super().get_cache_hook()

        def __getattr__(self, attr: str):
            if attr not in REQUEST_METHODS or not active() or not is_ours(self.lm):
                return super().__getattr__(attr)
            method = getattr(self.lm, attr)
            return lambda requests: self._answer(attr, method, requests)

        def _answer(self, attr: str, method, requests: list) -> list:
            from lm_eval_audio.model_wrappers.run_notes import ModelNotes, notes_of

            from lm_eval_audio.model_wrappers.spoken_answers import cache_args

            condition = getattr(self.lm, "audio_condition", None)
            # a spoken answer keyed apart from a text one (spoken_answers.cache_args), as the wrapper stores it
            asked = [cache_args(request) for request in requests]
            keys = [request_key(hash_args, attr, args, condition) for args in asked]
            answers: list = [None] * len(requests)
            to_ask = []
            for i, (request, key) in enumerate(zip(requests, keys)):
                # Sampled answers are never reused (lm-eval's rule: repeats must differ).
                if attr == "generate_until" and request.args[1].get("do_sample", False):
                    to_ask.append(i)
                elif key in self.dbdict:
                    answers[i] = self.dbdict[key]
                else:
                    to_ask.append(i)
            # lm-eval's own lines, as a user of --use_cache reads them
            lm_eval_log.info(f"Loading '{attr}' responses from cache '{self.cache_db}' where possible...")
            lm_eval_log.info(f"Cached requests: {len(requests) - len(to_ask)}, Requests remaining: {len(to_ask)}")
            notes = notes_of(self.lm) or ModelNotes()
            notes.requests_in_call = len(requests)  # failed_requests: did every request of the call fail?
            try:
                fresh = method([requests[i] for i in to_ask]) if to_ask else []
            finally:
                notes.requests_in_call = None
            hook = self.lm.cache_hook
            for i, answer in zip(to_ask, fresh, strict=True):
                answers[i] = answer
                hook.add_partial(attr, asked[i], answer)
            self.dbdict.commit()
            return answers

    AudioCachingLM.__module__ = KeyedCacheHook.__module__ = __name__
    module.CachingLM = AudioCachingLM
