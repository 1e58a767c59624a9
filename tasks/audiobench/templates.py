"""Instruction templates for the AudioBench datasets whose own instructions lack variety.

The official entries are benchmark data, copied exactly from AudioLLMs/AudioBench at the
commit and file named above each block: first the current toolkit's (e991641), then the
paper-era ones (b30fdf8) that it no longer has. Where the official pools hold fewer than
20, the entries marked ``lm-eval-audio`` complete them, written in the same style and
keeping each dataset's label list (so every template still names the answer space).
The speech-instruction pool stays at the official 10: those prompts only say "follow
the instructions in the audio".

A template's index in its pool is its ``template_id`` (``prompt_mode=fixed:K`` pins
index K). Order is fixed: official (current), official (paper era), ours. The default draw
(``prompt_mode=seeded``) is from the current toolkit's block alone, as the toolkit draws: the
first ``TOOLKIT_TEMPLATES[pool]`` templates. The rest serve ``sweep`` and ``fixed:K``.
"""

from __future__ import annotations

# pool -> list of (source, templates)
SOURCES: dict[str, list[tuple[str, list[str]]]] = {
    # ASR (the 9 ASR datasets)
    "asr": [
        (
            "AudioLLMs/AudioBench@e991641 src/dataset_src/prompts/prompts.py, asr_instructions",
            [
                "Please help me transcribe the speech into text.",
                "Transcribe the spoken words into written form.",
                "Listen to the speech and provide the text version.",
                "Transform the speech into a text document as transcriptions.",
                "Please give me the written transcription of the speech content.",
                "Recognize the verbal content in the speech and transcribe it into text.",
                "Turn the speech input into a text transcription.",
                "Process the speech and provide the text output.",
                "Transcribe the spoken conversation into written text.",
            ],
        ),
        (
            "AudioLLMs/AudioBench@b30fdf8 src/dataset_src/librispeech_test_clean.py, asr_instructions (paper era; entries not kept at e991641)",
            [
                "Convert the audio speech into a text transcript.",
                "Listen to the audio and provide the text version.",
                "Transform the speech into a text document.",
                "Capture the spoken language and convert it to text.",
                "Decode the audio and give me the written transcription.",
                "Recognize the verbal communication and transcribe it into text.",
                "Process the audio speech and provide the text output.",
                "Translate the spoken conversation into written text.",
            ],
        ),
        (
            "lm-eval-audio",
            [
                "Please write out the words spoken in this recording.",
                "Provide a verbatim transcript of the audio.",
                "Write down exactly what the speaker says.",
            ],
        ),
    ],
    # audio captioning (wavcaps_test, audiocaps_test)
    "ac": [
        (
            "AudioLLMs/AudioBench@e991641 src/dataset_src/audiocaps_test.py and wavcaps_test.py, ac_instructions",
            [
                "Could you help me create an audio caption for the provided clip?",
                "Please help me generate an audio caption for the audio clip.",
                "Would you mind helping me produce an audio caption for the provided clip?",
                "Could you help me formulate an audio caption for this clip?",
                "Could you assist me in creating a caption for the audio clip?",
            ],
        ),
        (
            "AudioLLMs/AudioBench@b30fdf8 src/dataset_src/audiocaps_test.py, ac_instructions (paper era)",
            [
                "Listen to the audio and give a description.",
                "Hear the recording and summarize it briefly.",
                "Check the audio and provide an overview.",
                "Listen to the clip and write a description.",
                "Hear the sound and explain what you hear.",
                "Review the audio and offer a description.",
                "Analyze the recording and describe it.",
                "Listen to the track and summarize it.",
                "Observe the audio and give an account of it.",
                "Hear the audio and write a brief description.",
            ],
        ),
        (
            "lm-eval-audio",
            [
                "Write a short caption describing what can be heard in this clip.",
                "Describe the sounds in this audio clip in one sentence.",
                "Provide a concise caption for the audio.",
                "What can be heard in this recording? Answer with a brief caption.",
                "Summarize the audio clip as a one-sentence caption.",
            ],
        ),
    ],
    # emotion (iemocap_emotion_test)
    "er_iemocap": [
        (
            "AudioLLMs/AudioBench@e991641 src/dataset_src/iemocap_emotion_test.py, er_instructions",
            [
                "How do you perceive the speaker's emotional state from their speech (frustration, anger, excited, neutral, happiness, surprise, sad)?",
                "What emotions do you detect in the speaker's voice (frustration, anger, excited, neutral, happiness, surprise, sad)?",
                "Can you identify the speaker's emotional state from their speech (frustration, anger, excited, neutral, happiness, surprise, sad)?",
                "Based on their speech, how would you describe the speaker's emotions (frustration, anger, excited, neutral, happiness, surprise, sad)?",
                "What emotional cues can you pick up from the speaker's speech (frustration, anger, excited, neutral, happiness, surprise, sad)?",
                "How would you describe the emotions conveyed in the speaker's voice (frustration, anger, excited, neutral, happiness, surprise, sad)?",
                "What do you think the speaker is feeling based on their speech (frustration, anger, excited, neutral, happiness, surprise, sad)?",
                "Can you interpret the emotions in the speaker's speech (frustration, anger, excited, neutral, happiness, surprise, sad)?",
                "How does the speaker's speech reflect their emotional state (frustration, anger, excited, neutral, happiness, surprise, sad)?",
                "What is the emotional tone of the speaker's speech (frustration, anger, excited, neutral, happiness, surprise, sad)?",
            ],
        ),
        (
            "lm-eval-audio (with the dataset's label list)",
            [
                "Which emotion is the speaker expressing (frustration, anger, excited, neutral, happiness, surprise, sad)?",
                "What is the speaker's emotion in this recording (frustration, anger, excited, neutral, happiness, surprise, sad)?",
                "Which emotion best describes the speaker's tone (frustration, anger, excited, neutral, happiness, surprise, sad)?",
                "From the way they speak, what emotion does the speaker convey (frustration, anger, excited, neutral, happiness, surprise, sad)?",
                "What feeling comes through in the speaker's voice (frustration, anger, excited, neutral, happiness, surprise, sad)?",
                "Which emotional state does the speaker's voice reveal (frustration, anger, excited, neutral, happiness, surprise, sad)?",
                "How does the speaker feel, judging by their voice (frustration, anger, excited, neutral, happiness, surprise, sad)?",
                "What emotion would you label this speech with (frustration, anger, excited, neutral, happiness, surprise, sad)?",
                "Which emotion do you hear in the speaker's speech (frustration, anger, excited, neutral, happiness, surprise, sad)?",
                "What is the dominant emotion in the speaker's voice (frustration, anger, excited, neutral, happiness, surprise, sad)?",
            ],
        ),
    ],
    # emotion (meld_emotion_test)
    "er_meld_emotion": [
        (
            "AudioLLMs/AudioBench@e991641 src/dataset_src/meld_emotion_test.py, er_instructions",
            [
                "How do you perceive the speaker's emotional state from their speech (neutral, joy, disgust, sadness, surprise, anger, fear)?",
                "What emotions do you detect in the speaker's voice (neutral, joy, disgust, sadness, surprise, anger, fear)?",
                "Can you identify the speaker's emotional state from their speech (neutral, joy, disgust, sadness, surprise, anger, fear)?",
                "Based on their speech, how would you describe the speaker's emotions (neutral, joy, disgust, sadness, surprise, anger, fear)?",
                "What emotional cues can you pick up from the speaker's speech (neutral, joy, disgust, sadness, surprise, anger, fear)?",
                "How would you describe the emotions conveyed in the speaker's voice (neutral, joy, disgust, sadness, surprise, anger, fear)?",
                "What do you think the speaker is feeling based on their speech (neutral, joy, disgust, sadness, surprise, anger, fear)?",
                "Can you interpret the emotions in the speaker's speech (neutral, joy, disgust, sadness, surprise, anger, fear)?",
                "How does the speaker's speech reflect their emotional state (neutral, joy, disgust, sadness, surprise, anger, fear)?",
                "What is the emotional tone of the speaker's speech (neutral, joy, disgust, sadness, surprise, anger, fear)?",
            ],
        ),
        (
            "lm-eval-audio (with the dataset's label list)",
            [
                "Which emotion is the speaker expressing (neutral, joy, disgust, sadness, surprise, anger, fear)?",
                "What is the speaker's emotion in this recording (neutral, joy, disgust, sadness, surprise, anger, fear)?",
                "Which emotion best describes the speaker's tone (neutral, joy, disgust, sadness, surprise, anger, fear)?",
                "From the way they speak, what emotion does the speaker convey (neutral, joy, disgust, sadness, surprise, anger, fear)?",
                "What feeling comes through in the speaker's voice (neutral, joy, disgust, sadness, surprise, anger, fear)?",
                "Which emotional state does the speaker's voice reveal (neutral, joy, disgust, sadness, surprise, anger, fear)?",
                "How does the speaker feel, judging by their voice (neutral, joy, disgust, sadness, surprise, anger, fear)?",
                "What emotion would you label this speech with (neutral, joy, disgust, sadness, surprise, anger, fear)?",
                "Which emotion do you hear in the speaker's speech (neutral, joy, disgust, sadness, surprise, anger, fear)?",
                "What is the dominant emotion in the speaker's voice (neutral, joy, disgust, sadness, surprise, anger, fear)?",
            ],
        ),
    ],
    # sentiment (meld_sentiment_test)
    "er_meld_sentiment": [
        (
            "AudioLLMs/AudioBench@e991641 src/dataset_src/meld_sentiment_test.py, er_instructions",
            [
                "What sentiment do you sense in the speaker's voice (neutral, positive, negative)?",
                "Can you determine the speaker's sentiment from their speech (neutral, positive, negative)?",
                "How would you describe the speaker's sentiment based on their speech (neutral, positive, negative)?",
                "What sentiment signals can you hear in the speaker's speech (neutral, positive, negative)?",
                "How would you interpret the sentiment expressed in the speaker's voice (neutral, positive, negative)?",
                "What sentiment do you think the speaker is conveying through their speech (neutral, positive, negative)?",
                "Can you recognize the sentiment in the speaker's speech (neutral, positive, negative)?",
                "How does the speaker's speech indicate their sentiment (neutral, positive, negative)?",
                "What sentiment tone do you hear in the speaker's speech (neutral, positive, negative)?",
                "What sentiment is conveyed through the speaker's voice (neutral, positive, negative)?",
            ],
        ),
        (
            "lm-eval-audio (with the dataset's label list)",
            [
                "Which sentiment is the speaker expressing (neutral, positive, negative)?",
                "What is the speaker's sentiment in this recording (neutral, positive, negative)?",
                "Which sentiment best describes the speaker's tone (neutral, positive, negative)?",
                "From the way they speak, what sentiment does the speaker convey (neutral, positive, negative)?",
                "What overall sentiment comes through in the speaker's voice (neutral, positive, negative)?",
                "Which sentiment does the speaker's voice reveal (neutral, positive, negative)?",
                "How does the speaker come across, judging by their voice (neutral, positive, negative)?",
                "What sentiment would you label this speech with (neutral, positive, negative)?",
                "Which sentiment do you hear in the speaker's speech (neutral, positive, negative)?",
                "What is the dominant sentiment in the speaker's voice (neutral, positive, negative)?",
            ],
        ),
    ],
    # accent (voxceleb_accent_test)
    "ar": [
        (
            "AudioLLMs/AudioBench@e991641 src/dataset_src/voxceleb_accent_test.py, ar_instructions",
            [
                "Can you guess the speaker's nationality from their accent?",
                "Based on the accent, can you guess the speaker's nationality?",
                "Can you identify the nationality of the speaker by their accent?",
                "From the speaker's accent, can you tell their nationality?",
                "Can you guess the nationality from the speaker's accent?",
                "Based on their accent, can you determine the speaker's nationality?",
                "Can you tell the nationality of the speaker based on their accent?",
                "From the accent, can you identify the speaker's nationality?",
                "Can you recognize the speaker's nationality from their accent?",
                "Based on the accent, can you identify the speaker's nationality?",
            ],
        ),
        (
            "AudioLLMs/AudioBench@b30fdf8 src/dataset_src/voxceleb_accent_test.py, ar_instructions (paper era; entry not kept at e991641)",
            [
                "Can you determine the speaker's nationality from their accent?",
            ],
        ),
        (
            "lm-eval-audio",
            [
                "Which country do you think the speaker is from, judging by their accent?",
                "What nationality does the speaker's accent suggest?",
                "Listen to the accent: where is the speaker most likely from?",
                "Judging by how they speak, what is the speaker's nationality?",
                "What country's accent does the speaker have?",
                "From the way the speaker pronounces words, which nationality would you guess?",
                "Where is the speaker from, based on their accent?",
                "What is the speaker's likely nationality, given their accent?",
                "Which nationality would you assign to the speaker from their accent?",
            ],
        ),
    ],
    # gender (voxceleb_gender_test, iemocap_gender_test)
    "gr": [
        (
            "AudioLLMs/AudioBench@e991641 src/dataset_src/voxceleb_gender_test.py and iemocap_gender_test.py, gr_instructions",
            [
                "Can you tell the speaker's gender from the audio (Male or Female)?",
                "Can you identify the speaker's gender based on the audio (Male or Female)?",
                "From the audio, can you guess the speaker's gender (Male or Female)?",
                "Can you determine the gender of the speaker from the audio (Male or Female)?",
                "Based on the audio, can you identify the speaker's gender (Male or Female)?",
                "Can you figure out the speaker's gender from the audio (Male or Female)?",
                "Can you discern the speaker's gender based on the audio (Male or Female)?",
                "From the audio, can you determine the speaker's gender (Male or Female)?",
                "Can you recognize the speaker's gender from the audio (Male or Female)?",
                "Can you guess the gender of the speaker based on the audio (Male or Female)?",
            ],
        ),
        (
            "lm-eval-audio (with the label list)",
            [
                "What is the speaker's gender (Male or Female)?",
                "Which gender does the speaker's voice suggest (Male or Female)?",
                "Judging by the voice, what is the gender of the speaker (Male or Female)?",
                "What gender would you say the speaker is (Male or Female)?",
                "From the voice in this clip, what is the speaker's gender (Male or Female)?",
                "Is the speaker a man or a woman (Male or Female)?",
                "Which gender would you assign to the speaker from the audio (Male or Female)?",
                "What gender is the person speaking (Male or Female)?",
                "Based on the voice, which gender is the speaker (Male or Female)?",
                "Listening to the audio, what is the speaker's gender (Male or Female)?",
            ],
        ),
    ],
    # speech instruction (openhermes_audio_test, alpaca_audio_test)
    "si": [
        (
            "AudioLLMs/AudioBench@e991641 src/dataset_src/alpaca_audio_test.py and openhermes_audio_test.py, si_instructions",
            [
                "Kindly adhere to the directions provided in the audio.",
                "Please comply with the instructions given in the audio clip.",
                "Please obey the instructions that were provided in the audio.",
                "Please adhere to the instructions given in the audio.",
                "Please make sure to follow the instructions provided in the audio.",
                "Please ensure you follow the directions provided in the audio.",
                "Please adhere strictly to the instructions in the audio recording.",
                "Please adhere to the guidelines provided in the audio.",
                "Please make it a point to follow the instructions from the audio.",
                "Please listen carefully and follow the instructions given in the audio.",
            ],
        ),
    ],
}

POOLS: dict[str, tuple[str, ...]] = {
    name: tuple(t for _, templates in blocks for t in templates) for name, blocks in SOURCES.items()
}

TOOLKIT = "AudioLLMs/AudioBench@e991641"
# How many templates each pool starts with from the current toolkit: the ones a default run draws from.
TOOLKIT_TEMPLATES: dict[str, int] = {
    name: len(blocks[0][1]) if blocks[0][0].startswith(TOOLKIT + " ") else 0 for name, blocks in SOURCES.items()
}

# The three ASR prompts of the paper's prompt-sensitivity test (arXiv 2406.16020, Figure 2), verbatim from the
# figure's caption: "Prompt 1-3: {...}" (the first two without a full stop, as there). The body text quotes the
# third as "Decode the audio and give me the written transcripts," (transcripts, not transcriptions): the
# caption's list is used. ``prompt_mode=figure2`` asks every item of an ASR task with each; ``figure2:K`` with
# prompt K (1-3, the paper's numbering, which is also their template_id).
FIGURE2_SOURCE = "AudioBench paper (arXiv 2406.16020), Figure 2 caption"
FIGURE2_ASR_PROMPTS: tuple[str, ...] = (
    "Turn the speech input into a text transcription",
    "Recognize the speech and give me the transcription",
    "Decode the audio and give me the written transcriptions.",
)
