"""Audio as the plugin handles it: references, decoding, tables of encoded cells, encoding for APIs, the audio= conditions, <audio> markers in prompts, mixing, FFmpeg."""
