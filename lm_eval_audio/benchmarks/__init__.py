"""The benchmarks' data and rules: AIR-Bench and AudioBench loaders, official prompts and templates, AudioBench's chunk and template scoring."""
