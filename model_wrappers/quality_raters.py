"""How a spoken answer sounds, rated by the models the reference toolkits use: each rater is loaded once per run,
reads the saved answers (WAV files) at its own sample rate, rates them in batches, and says what it ran for the
results (model, revision or file digests, the rate it resamples to).

* :class:`DnsMos`: the DNS Challenge's DNSMOS (microsoft/DNS-Challenge, ``DNSMOS/dnsmos_local.py``, the script
  UltraEval-Audio's and speechmos' scorers restate): ``sig_bak_ovr.onnx`` gives P.835's SIG, BAK and OVRL,
  ``model_v8.onnx`` P.808's one score, each the mean over the clip's 9.01-second windows, one second apart, the
  P.835 scores mapped through the script's polynomials. A clip shorter than a window is repeated until it fills
  one, as the script does. Clips are read as the script reads them (``librosa.load(path, sr=16000)``).
* :class:`SpeakerSimilarity`: the cosine between the speaker embeddings of the answer and of a reference clip (the
  document's own audio: a voice-cloning prompt), from a transformers ``WavLMForXVector`` checkpoint
  (``microsoft/wavlm-base-plus-sv`` by default), each clip at 16 kHz, batched with an attention mask.
  Seed-TTS-eval's SIM uses a WavLM-large ECAPA-TDNN checkpoint that is not published in a form transformers loads:
  the results name the model, and docs/SPOKEN.md says the two are not the same number.
* :class:`Utmos`: UTMOS22 strong, the MOS predictor URO-Bench, VocalBench and UltraEval-Audio report as UTMOS, on
  SpeechMOS's checkpoint (``model_wrappers.utmos22``), each clip alone.
* :class:`Emotion`: emotion2vec+ large's probabilities of its nine emotion labels, on FunASR's own model class
  (``model_wrappers.emotion2vec``), each clip alone; the ``emotion`` metric reads them against the emotion each
  document asks for (``metrics.speech_quality``).

A clip a rater cannot rate (no samples) gets no score; the task counts it (``speech_unrated``).
"""

from __future__ import annotations

import numpy as np

SAMPLE_RATE = 16000
DNSMOS_WINDOW_SECONDS = 9.01  # dnsmos_local.py's INPUT_LENGTH
# dnsmos_local.py's polynomials for the non-personalized P.835 model, highest power first (numpy.poly1d's order)
_P835_FIT = {"sig": (-0.08397278, 1.22083953, 0.0052439), "bak": (-0.13166888, 1.60915514, -0.39604546),
             "ovrl": (-0.06766283, 1.11546468, 0.04602535)}


class DnsMos:
    """DNSMOS P.835 (``dnsmos_sig``, ``dnsmos_bak``, ``dnsmos_ovrl``) and P.808 (``dnsmos_p808``)."""

    name = "dnsmos"
    metrics = ("dnsmos_sig", "dnsmos_bak", "dnsmos_ovrl", "dnsmos_p808")
    needs_reference = False

    def __init__(self, folder=None) -> None:
        import onnxruntime

        from lm_eval_audio.storage import dnsmos_data

        paths = dnsmos_data.model_paths(folder)
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = 1  # the same numbers on every machine: one thread, one order of sums
        self._p835 = onnxruntime.InferenceSession(str(paths["sig_bak_ovr.onnx"]), options,
                                                  providers=["CPUExecutionProvider"])
        self._p808 = onnxruntime.InferenceSession(str(paths["model_v8.onnx"]), options,
                                                  providers=["CPUExecutionProvider"])

    def record(self) -> dict:
        from lm_eval_audio.storage import dnsmos_data

        return {"model": "DNS Challenge DNSMOS (P.835 sig_bak_ovr.onnx, P.808 model_v8.onnx)",
                "source": dnsmos_data.WHEEL, "sha256": dnsmos_data.sha256s(), "sample_rate": SAMPLE_RATE,
                "window_seconds": DNSMOS_WINDOW_SECONDS}

    @staticmethod
    def read(path: str) -> np.ndarray:
        import librosa

        return librosa.load(path, sr=SAMPLE_RATE)[0]

    @staticmethod
    def _p808_features(window: np.ndarray) -> np.ndarray:
        """dnsmos_local.py's ``audio_melspec``: 120 mel bands, a 321-point FFT, hop 160, in dB against the
        window's maximum, shifted and scaled by 40; time first."""
        import librosa

        mel = librosa.feature.melspectrogram(y=window, sr=SAMPLE_RATE, n_fft=321, hop_length=160, n_mels=120)
        return ((librosa.power_to_db(mel, ref=np.max) + 40) / 40).T

    @staticmethod
    def windows(audio: np.ndarray) -> list[np.ndarray]:
        """The clip's 9.01-second windows, one second apart, a short clip repeated to fill one (dnsmos_local.py)."""
        if audio.size == 0:
            return []
        window = int(DNSMOS_WINDOW_SECONDS * SAMPLE_RATE)
        while len(audio) < window:
            audio = np.append(audio, audio)
        hops = int(np.floor(len(audio) / SAMPLE_RATE) - DNSMOS_WINDOW_SECONDS) + 1
        segments = [audio[int(i * SAMPLE_RATE): int((i + DNSMOS_WINDOW_SECONDS) * SAMPLE_RATE)] for i in range(hops)]
        return [segment for segment in segments if len(segment) >= window]

    def _scores(self, segments: list[np.ndarray]) -> list[dict]:
        """Each window's four scores, the windows through each model together (their first dimension is free)."""
        raw = self._p835.run(None, {"input_1": np.stack(segments).astype("float32")})[0]
        features = np.stack([self._p808_features(segment[:-160]) for segment in segments]).astype("float32")
        p808 = self._p808.run(None, {"input_1": features})[0]
        out = []
        for (sig, bak, ovrl), overall in zip(raw, p808):
            scores = {f"dnsmos_{key}": float(np.poly1d(_P835_FIT[key])(value))
                      for key, value in (("sig", sig), ("bak", bak), ("ovrl", ovrl))}
            out.append({**scores, "dnsmos_p808": float(overall[0])})
        return out

    def rate(self, paths: list[str], references: list | None = None, batch_size: int = 8) -> list[dict | None]:
        """Each clip's four scores, the mean over its windows; the windows of the clips rated ``batch_size`` at a
        time."""
        owners, segments = [], []
        for i, path in enumerate(paths):
            for segment in self.windows(self.read(path)):
                owners.append(i)
                segments.append(segment)
        per_window = []
        for start in range(0, len(segments), batch_size):
            per_window += self._scores(segments[start:start + batch_size])
        out: list[dict | None] = []
        for i in range(len(paths)):
            mine = [scores for owner, scores in zip(owners, per_window) if owner == i]
            out.append({metric: float(np.mean([s[metric] for s in mine])) for metric in self.metrics} if mine else None)
        return out


class SpeakerSimilarity:
    """``speaker_similarity``: the cosine between x-vectors of the answer and of its reference clip."""

    name = "speaker_similarity"
    metrics = ("speaker_similarity",)
    needs_reference = True
    DEFAULT = "microsoft/wavlm-base-plus-sv"

    def __init__(self, model: str = DEFAULT) -> None:
        from transformers import AutoFeatureExtractor, WavLMForXVector

        from lm_eval_audio.model_wrappers import checkpoints

        self.model_name = model
        self.revision = checkpoints.hub_revision(model)
        self.extractor = AutoFeatureExtractor.from_pretrained(model)
        self.model = WavLMForXVector.from_pretrained(model).eval()

    def record(self) -> dict:
        return {"model": self.model_name, "revision": self.revision, "class": "WavLMForXVector",
                "sample_rate": SAMPLE_RATE, "score": "cosine of the x-vectors of the answer and its reference clip"}

    def embeddings(self, clips: list[np.ndarray], batch_size: int) -> list[np.ndarray | None]:
        """Each clip's x-vector, longest first in batches of ``batch_size`` (padded, with an attention mask)."""
        import torch

        out: list[np.ndarray | None] = [None] * len(clips)
        order = sorted((i for i, c in enumerate(clips) if c.size), key=lambda i: -len(clips[i]))
        for start in range(0, len(order), batch_size):
            chunk = order[start:start + batch_size]
            inputs = self.extractor([clips[i] for i in chunk], sampling_rate=SAMPLE_RATE, padding=True,
                                    return_attention_mask=True, return_tensors="pt")
            with torch.no_grad():
                vectors = self._xvectors(inputs["input_values"], inputs["attention_mask"])
            for i, vector in zip(chunk, torch.nn.functional.normalize(vectors, dim=-1)):
                out[i] = vector.numpy()
        return out

    def _xvectors(self, values, mask):
        """``WavLMForXVector``'s embeddings, its own modules in its own order, pooled over each clip's own frames.
        Its ``forward`` pools a padded clip over frames its TDNN computed from the padding too (its
        ``_get_tdnn_output_lengths`` leaves out the dilation), so a clip's score would change with the clips it is
        batched with; alone, a clip is pooled over all its frames, which is what this computes for each."""
        import torch

        model, config = self.model, self.model.config
        outputs = model.wavlm(values, attention_mask=mask, output_hidden_states=config.use_weighted_layer_sum)
        if config.use_weighted_layer_sum:
            weights = torch.nn.functional.softmax(model.layer_weights, dim=-1)
            hidden = (torch.stack(outputs.hidden_states, dim=1) * weights.view(-1, 1, 1)).sum(dim=1)
        else:
            hidden = outputs.last_hidden_state
        hidden = model.projector(hidden)
        for layer in model.tdnn:
            hidden = layer(hidden)
        lengths = model._get_feat_extract_output_lengths(mask.sum(dim=1))
        for kernel, dilation in zip(config.tdnn_kernel, config.tdnn_dilation):
            lengths = lengths - dilation * (kernel - 1)
        pooled = torch.stack([torch.cat([hidden[i, :n].mean(dim=0), hidden[i, :n].std(dim=0)])
                              for i, n in enumerate(lengths.tolist())])
        return model.feature_extractor(pooled)

    def rate(self, paths: list[str], references: list, batch_size: int = 8) -> list[dict | None]:
        """``references``: each answer's reference clip, already at 16 kHz (None: no reference, no score)."""
        from lm_eval_audio.audio import decoding

        answers = self.embeddings([decoding.load(path, SAMPLE_RATE) for path in paths], batch_size)
        voices = self.embeddings([r if r is not None else np.zeros(0, np.float32) for r in references], batch_size)
        return [None if a is None or v is None else {"speaker_similarity": float(np.dot(a, v))}
                for a, v in zip(answers, voices)]


class Utmos:
    """``utmos``: UTMOS22 strong, as SpeechMOS packages it (``model_wrappers.utmos22``), each clip alone."""

    name = "utmos"
    metrics = ("utmos",)
    needs_reference = False

    def __init__(self, checkpoint: str | None = None) -> None:
        from pathlib import Path

        from lm_eval_audio.model_wrappers import utmos22
        from lm_eval_audio.storage.digests import sha256_of

        self.path = Path(checkpoint) if checkpoint else utmos22.default_checkpoint()
        self.model = utmos22.load_speechmos(self.path)
        self.sha256 = sha256_of(str(self.path))

    def record(self) -> dict:
        from lm_eval_audio.model_wrappers import utmos22

        return {"model": "UTMOS22 strong (SpeechMOS v1.2.0 utmos22_strong)", "checkpoint": utmos22.FILE,
                "sha256": self.sha256, "source": utmos22.URL, "sample_rate": SAMPLE_RATE,
                "resampled_by": "torchaudio.functional.resample"}

    def rate(self, paths: list[str], references: list | None = None, batch_size: int = 8) -> list[dict | None]:
        """Each clip's score, each clip alone (see ``utmos22``: a padded batch would hear the padding)."""
        import soundfile as sf
        import torch
        import torchaudio

        out: list[dict | None] = []
        for path in paths:
            wave, rate = sf.read(path, dtype="float32", always_2d=True)
            if wave.shape[0] == 0:
                out.append(None)
                continue
            mono = torch.from_numpy(wave.mean(axis=1))[None, :]
            if rate != SAMPLE_RATE:
                mono = torchaudio.functional.resample(mono, orig_freq=rate, new_freq=SAMPLE_RATE)
            with torch.no_grad():
                out.append({"utmos": float(self.model(mono)[0])})
        return out


class Emotion:
    """``emotion``: each clip's label -> probability under emotion2vec+ large (``model_wrappers.emotion2vec``)."""

    name = "emotion2vec"
    metrics = ("emotion",)
    needs_reference = False

    def __init__(self, model: str | None = None) -> None:
        from lm_eval_audio.model_wrappers import emotion2vec

        self.recognizer = emotion2vec.Emotion2vecRecognizer(model or emotion2vec.REPO)

    def record(self) -> dict:
        return self.recognizer.record()

    def rate(self, paths: list[str], references: list | None = None, batch_size: int = 8) -> list[dict | None]:
        """Each clip's probabilities, each clip alone (as FunASR runs them: no padding, no neighbour heard)."""
        out: list[dict | None] = []
        for path in paths:
            probabilities = self.recognizer.probabilities(path)
            out.append(None if probabilities is None else {"emotion": probabilities})
        return out


RATERS = {DnsMos.name: DnsMos, SpeakerSimilarity.name: SpeakerSimilarity, Utmos.name: Utmos, Emotion.name: Emotion}
METRIC_RATER = {metric: rater.name for rater in RATERS.values() for metric in rater.metrics}
