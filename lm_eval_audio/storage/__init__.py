"""What is kept: the run state of one evaluation, SQLite text stores, JSON-lines files, bundled models and WordNet, and the check of paths read from data files."""
